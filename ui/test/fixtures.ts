import type { HubSnapshot, ServerSnapshot } from '../src/api.gen';

export const NOW = Date.parse('2026-03-01T12:00:00.000Z');
export const at = (secondsFromNow: number) => new Date(NOW + secondsFromNow * 1000).toISOString();

/**
 * A server as an older hub sent it (without `health`, `breaker`, `lastChange`,
 * ...), so the page's fallbacks stay tested; `over` may add any field, also
 * in an older shape.
 */
export function server(over: Partial<Record<keyof ServerSnapshot, unknown>> = {}): ServerSnapshot {
  return {
    id: 'github',
    transport: 'http',
    enabled: true,
    state: 'ready',
    toolCount: 41,
    promptCount: 2,
    resourceCount: 1,
    resourceTemplateCount: 0,
    listedAt: at(-120),
    refreshTrigger: 'poll',
    ttlExpiresAt: at(180),
    stale: false,
    lastError: null,
    lastOkAt: at(-120),
    lastFailureAt: null,
    consecutiveFailures: 0,
    pid: null,
    serverName: 'github-mcp',
    serverVersion: '1.4.0',
    protocolVersion: '2025-06-18',
    stderrTail: [],
    toolTokens: 0,
    ...over,
  } as ServerSnapshot;
}

export function snapshot(servers: ServerSnapshot[], over: Partial<HubSnapshot> = {}): HubSnapshot {
  return {
    version: '0.1.0',
    endpoint: 'http://127.0.0.1:8420/mcp',
    configPath: '/home/me/.config/switchboard/config.json',
    configError: null,
    lastReload: null,
    startedAt: at(-3600),
    generatedAt: at(0),
    servers,
    totals: {
      servers: servers.length,
      tools: servers.reduce((n, s) => n + (s.enabled ? s.toolCount : 0), 0),
      builtinTools: 0,
      prompts: 0,
      resources: 0,
      toolTokens: servers.reduce((n, s) => n + (s.enabled ? s.toolTokens : 0), 0),
    },
    sessions: [],
    endpoints: [{ path: '/mcp', toolMode: 'all', tools: servers.reduce((n, s) => n + (s.enabled ? s.toolCount : 0), 0), toolTokens: 0, tokensCounted: true }],
    ...over,
  };
}
