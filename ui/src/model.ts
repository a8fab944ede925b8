// Snapshot → view model: everything the page shows, already in words.
// Pure functions (plus a small change tracker) so they are unit-tested
// without a DOM; render.ts only lays these values out.

import { ago, clock, duration, nameList, parseTime, plural, until } from './format';
import { endpointRows, type EndpointRow } from './endpoints';
import type {
  ConfigError,
  Health,
  HubSnapshot,
  RefreshTrigger,
  ServerSnapshot,
} from './api.gen';

/** A change younger than this marks its row. */
export const RECENT_MS = 10 * 60 * 1000;

export type RowHealth = Health | 'disabled';

export interface ChangeView {
  at: number;
  /** "12 min ago" */
  when: string;
  /** What found it, in words ("by a periodic check"), or "". */
  how: string;
  added: string[];
  removed: string[];
  modified: string[];
  /** Set when only counts are known (hubs without `lastChange`): "tools 2 → 3". */
  summary: string | null;
}

export interface ServerRow {
  id: string;
  /** The server's own name and version, when it told us: "fixture 1.2.0". */
  serverInfo: string | null;
  transport: string;
  enabled: boolean;
  state: string;
  stateLabel: string;
  stateHint: string;
  health: RowHealth;
  healthLabel: string;
  /** A shape besides the colour, so health reads without colour too. */
  healthSymbol: string;
  listed: boolean;
  /** "41 tools" (or "—" before the first listing). */
  countsLabel: string;
  /** Tokens of the server's exposed tool definitions (tools.ts shows them). */
  toolTokens: number;
  /** "2 prompts, 3 resources". */
  otherCountsLabel: string;
  /** One line of freshness in words. */
  staleness: string;
  /** Exact times for the tooltip. */
  stalenessDetail: string;
  stale: boolean;
  lastChange: ChangeView | null;
  lastChangeLabel: string | null;
  recentlyChanged: boolean;
  breaker: string | null;
  error: string | null;
  /** The error as the hub gave it, for the tooltip. */
  fullError: string | null;
  unverified: boolean;
  /** The hub's notes about the last listing (names reserved or listed twice). */
  notes: string[];
  canLogin: boolean;
  /** A login waits for the browser. */
  loginPending: boolean;
  canLogout: boolean;
  /** The hub's advice about logging in, when it has some. */
  authNote: string | null;
  /** The server's sandbox as a shield (null for remote servers). */
  sandbox: SandboxView | null;
}

export interface SandboxView {
  /** `contained`: the whole profile is enforced; `partial`: some of it; `off`: unsandboxed. */
  level: 'contained' | 'partial' | 'off';
  symbol: string;
  label: string;
  /** The profile, the mechanism and what is missing, for the tooltip. */
  hint: string;
}

/** A stdio server's sandbox for the shield beside its name (see docs/security.md). */
export function sandboxView(s: ServerSnapshot): SandboxView | null {
  const box = s.sandbox;
  if (!box || box.mechanism === 'not applicable') return null;
  if (box.profile === 'off') {
    return {
      level: 'off',
      symbol: '⚠',
      label: 'Unsandboxed',
      hint: 'This server runs with all of your rights (sandbox: false or settings.sandbox is off)',
    };
  }
  const dropped = box.droppedEnv.length > 0 ? ` Not passed on: ${box.droppedEnv.join(', ')}.` : '';
  const denial = box.lastDenial ? ` Last refusal: ${box.lastDenial}.` : '';
  if (box.enforced) {
    return {
      level: 'contained',
      symbol: '🛡',
      label: box.profile === 'custom' ? 'Sandboxed (custom)' : 'Sandboxed',
      hint: `${box.profile} profile: ${box.mechanism}.${dropped}${denial}`,
    };
  }
  return {
    level: 'partial',
    symbol: '⚠',
    label: 'Partly sandboxed',
    hint: `${box.profile} profile, not fully enforced: ${box.missing ?? 'unknown reason'}.${dropped}${denial}`,
  };
}

export interface DashboardView {
  endpoint: string;
  /** The merged endpoints with their tool and token totals (endpoints.ts). */
  endpoints: EndpointRow[];
  version: string;
  totalsLabel: string;
  healthSummary: string;
  overall: RowHealth;
  configError: string | null;
  reloadNotes: string[];
  servers: ServerRow[];
}

const STATE_LABELS: Record<string, [string, string]> = {
  disabled: ['Disabled', 'Switched off in the config; clients do not see its tools'],
  idle: ['Idle', 'Not running; starts when a client needs it'],
  starting: ['Starting', 'Starting and listing its capabilities'],
  ready: ['Running', 'Connected and serving'],
  sleeping: ['Sleeping', 'Stopped after being idle; starts again when needed'],
  failed: ['Failed', 'Could not start or stopped working'],
  authRequired: ['Login needed', 'This server needs you to log in before it can be used'],
};

const HEALTH_LABELS: Record<RowHealth, [string, string]> = {
  healthy: ['Healthy', '●'],
  degraded: ['Degraded', '▲'],
  down: ['Down', '✕'],
  unknown: ['Not checked yet', '○'],
  disabled: ['Off', '–'],
};

const TRIGGER_WORDS: Record<RefreshTrigger, string> = {
  startup: 'at start-up',
  firstUse: 'on first use',
  ttl: 'after the cache expired',
  notification: 'after the server announced a change',
  poll: 'by a periodic check',
  manual: 'by a manual refresh',
  reload: 'after a config reload',
};

export function stateLabel(state: string): [string, string] {
  return STATE_LABELS[state] ?? [state, ''];
}

export function triggerWords(trigger: string | null | undefined): string {
  if (!trigger) return '';
  return TRIGGER_WORDS[trigger as RefreshTrigger] ?? `(${trigger})`;
}

/** The hub's `health` when it sends one, otherwise derived from state and failures. */
export function serverHealth(s: ServerSnapshot): RowHealth {
  if (!s.enabled || s.state === 'disabled') return 'disabled';
  if (s.health) return s.health;
  if (s.state === 'failed' || s.state === 'authRequired') return 'down';
  if (s.stale || s.consecutiveFailures > 0 || s.breaker?.state === 'open') return 'degraded';
  if (s.listedAt) return 'healthy';
  return 'unknown';
}

/** The worst health among enabled servers ("disabled" when none is enabled). */
export function overallHealth(servers: readonly ServerSnapshot[]): RowHealth {
  const order: RowHealth[] = ['down', 'degraded', 'unknown', 'healthy'];
  const present = new Set<RowHealth>(servers.map(serverHealth).filter((h) => h !== 'disabled'));
  if (present.size === 0) return 'disabled';
  // A mix of broken and working servers is degraded overall; down only when nothing works.
  if (present.has('down') && (present.has('healthy') || present.has('degraded') || present.has('unknown'))) {
    return 'degraded';
  }
  return order.find((h) => present.has(h)) ?? 'unknown';
}

/** One line of freshness: "Listed 2 min ago by a periodic check · fresh for 3 min · next check in 3 min". */
export function staleness(s: ServerSnapshot, now: number): { text: string; detail: string } {
  const listedAt = parseTime(s.listedAt);
  const detail: string[] = [];
  if (listedAt === null) {
    let text: string;
    if (!s.enabled) text = 'Not listed (disabled)';
    else if (s.state === 'starting') text = 'Starting, not listed yet';
    else if (s.state === 'failed') text = 'Never listed: the server did not start';
    else if (s.state === 'authRequired') text = 'Not listed: log in first';
    else text = 'Not listed yet: starts on first use';
    return { text, detail: '' };
  }
  const parts: string[] = [];
  const trigger = triggerWords(s.refreshTrigger);
  parts.push(`Listed ${ago(listedAt, now)}${trigger ? ` ${trigger}` : ''}`);
  detail.push(`Listed at ${clock(listedAt)}`);
  if (s.stale) {
    const n = s.consecutiveFailures;
    parts.push(
      n > 1 ? `stale: the last ${n} refreshes failed` : 'stale: the last refresh failed',
    );
  }
  const ttl = parseTime(s.ttlExpiresAt);
  if (ttl !== null) {
    if (ttl > now) parts.push(`fresh for ${duration(ttl - now)}`);
    else parts.push(`cache expired ${ago(ttl, now)}, refreshed on next use`);
    detail.push(`cache expires at ${clock(ttl)}`);
  }
  const nextPoll = parseTime(s.nextPollAt);
  if (nextPoll !== null && s.enabled) {
    parts.push(`next check ${until(nextPoll, now)}`);
    detail.push(`next check at ${clock(nextPoll)}`);
  }
  return { text: parts.join(' · '), detail: detail.join(', ') };
}

export function breakerText(s: ServerSnapshot, now: number): string | null {
  const b = s.breaker;
  if (!b || b.state === 'closed') return null;
  if (b.state === 'halfOpen') return 'Trying again after repeated failures';
  const retry = parseTime(b.retryAt);
  if (retry === null || retry <= now) return 'Paused after repeated failures; tries again when next needed';
  return `Paused after repeated failures; next try ${until(retry, now)}`;
}

/** Longest error shown in a row; the whole text is in the tooltip and the logs. */
const MAX_ERROR_CHARS = 240;

/**
 * An upstream error as a person reads it: the hub's sentence, then only the
 * last line the server wrote to stderr (the whole tail is in the logs panel).
 */
export function shortError(message: string): string {
  const marker = '; stderr: ';
  const at = message.indexOf(marker);
  let text = message;
  if (at >= 0) {
    const lines = message
      .slice(at + marker.length)
      .split(' | ')
      .map((l) => l.trim())
      .filter(Boolean);
    const last = lines[lines.length - 1];
    text = `${message.slice(0, at)}${last ? `. Its last output: “${last}”` : ''}`;
  }
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}

export function errorText(s: ServerSnapshot): string | null {
  if (!s.lastError) return null;
  const n = s.consecutiveFailures;
  const text = shortError(s.lastError);
  return n > 1 ? `${text} (failed ${n} times in a row)` : text;
}

export function configErrorText(e: ConfigError | null | undefined): string | null {
  if (!e) return null;
  switch (e.kind) {
    case 'invalid': {
      // file:line:column (editors and terminals open it), then the same in words.
      const file = e.path ?? 'the config file';
      const where = e.line ? `${file}:${e.line}:${e.column ?? 1} (line ${e.line}, column ${e.column ?? 1})` : file;
      return `The config file has an error, so Switchboard keeps running the last good configuration. ${where}: ${e.message}`;
    }
    case 'read':
      return `Switchboard cannot read its config file ${e.path ?? ''}: ${e.message}`;
    case 'env':
      return `The environment variable ${e.name ?? ''}=${JSON.stringify(e.value ?? '')} is not valid: ${e.message}`;
    default:
      return `Config problem: ${e.message}`;
  }
}

export function changeLabel(change: ChangeView): string {
  const bits = [
    ...change.added.map((n) => `+${n}`),
    ...change.removed.map((n) => `−${n}`),
    ...change.modified.map((n) => `~${n}`),
  ];
  const what = change.summary ?? (bits.length > 0 ? nameList(bits, 6) : 'lists changed');
  return `Last change ${change.when}${change.how ? ` (found ${change.how})` : ''}: ${what}`;
}

function countsOf(s: ServerSnapshot): string {
  return [s.toolCount, s.promptCount, s.resourceCount, s.resourceTemplateCount].join('/');
}

/**
 * Remembers each server's counts between snapshots so that a hub without
 * `lastChange` still gets its changed rows marked (the page notices itself).
 */
export class ChangeTracker {
  private seen = new Map<string, { counts: string; tools: number; listedAt: string | null; enabled: boolean }>();
  private changes = new Map<string, { at: number; summary: string }>();

  observe(snapshot: HubSnapshot, now: number): void {
    const ids = new Set<string>();
    for (const s of snapshot.servers) {
      ids.add(s.id);
      const before = this.seen.get(s.id);
      const counts = countsOf(s);
      // Only a listed, enabled server whose counts move is a change: switching a
      // server off and on again is not. Hubs that send `lastChange` are not tracked.
      if (
        !Object.hasOwn(s, 'lastChange') &&
        s.enabled &&
        s.listedAt !== null &&
        before &&
        before.enabled &&
        before.listedAt !== null &&
        before.counts !== counts
      ) {
        const summary =
          before.tools !== s.toolCount
            ? `tools ${before.tools} → ${s.toolCount}`
            : 'prompts or resources changed';
        this.changes.set(s.id, { at: now, summary });
      }
      this.seen.set(s.id, { counts, tools: s.toolCount, listedAt: s.listedAt, enabled: s.enabled });
    }
    for (const id of [...this.seen.keys()]) {
      if (!ids.has(id)) {
        this.seen.delete(id);
        this.changes.delete(id);
      }
    }
  }

  changeFor(id: string): { at: number; summary: string | null } | null {
    return this.changes.get(id) ?? null;
  }
}

export function lastChangeOf(s: ServerSnapshot, now: number, tracker?: ChangeTracker): ChangeView | null {
  const lc = s.lastChange;
  const at = parseTime(lc?.at);
  if (lc && at !== null) {
    return {
      at,
      when: ago(at, now),
      how: triggerWords(lc.trigger),
      added: lc.added ?? [],
      removed: lc.removed ?? [],
      modified: lc.modified ?? [],
      summary: null,
    };
  }
  const seen = tracker?.changeFor(s.id);
  if (seen) {
    return { at: seen.at, when: ago(seen.at, now), how: '', added: [], removed: [], modified: [], summary: seen.summary };
  }
  return null;
}

export function serverRow(s: ServerSnapshot, now: number, tracker?: ChangeTracker): ServerRow {
  const health = serverHealth(s);
  const [healthLabel, healthSymbol] = HEALTH_LABELS[health];
  const [label, hint] = stateLabel(s.state);
  const listed = s.listedAt !== null;
  const { text, detail } = staleness(s, now);
  const change = lastChangeOf(s, now, tracker);
  const counts = listed ? plural(s.toolCount, 'tool') : '—';
  const otherCounts = listed
    ? `${plural(s.promptCount, 'prompt')}, ${plural(s.resourceCount + s.resourceTemplateCount, 'resource')}`
    : '';
  const info = s.serverName ? [s.serverName, s.serverVersion].filter(Boolean).join(' ') : null;
  return {
    id: s.id,
    serverInfo: info,
    transport: s.transport,
    enabled: s.enabled,
    state: s.state,
    stateLabel: label,
    stateHint: hint,
    health,
    healthLabel,
    healthSymbol,
    listed,
    countsLabel: counts,
    toolTokens: s.toolTokens,
    otherCountsLabel: otherCounts,
    fullError: s.enabled ? s.lastError : null,
    staleness: text,
    stalenessDetail: detail,
    stale: s.stale,
    lastChange: change,
    lastChangeLabel: change ? changeLabel(change) : null,
    recentlyChanged: change !== null && now - change.at < RECENT_MS,
    breaker: breakerText(s, now),
    error: s.enabled ? errorText(s) : null,
    unverified: s.unverified === true,
    notes: s.notes ?? [],
    canLogin: s.enabled && (s.state === 'authRequired' || (s.auth?.required === true && !s.auth.loggedIn)),
    loginPending: s.auth?.loginPending === true,
    canLogout: s.auth?.loggedIn === true,
    authNote: s.enabled ? (s.auth?.message ?? null) : null,
    sandbox: sandboxView(s),
  };
}

export function dashboard(snapshot: HubSnapshot, now: number, tracker?: ChangeTracker): DashboardView {
  const t = snapshot.totals;
  const servers = snapshot.servers.map((s) => serverRow(s, now, tracker));
  const counts = new Map<RowHealth, number>();
  for (const row of servers) counts.set(row.health, (counts.get(row.health) ?? 0) + 1);
  const order: RowHealth[] = ['healthy', 'degraded', 'down', 'unknown', 'disabled'];
  const healthSummary = order
    .filter((h) => counts.has(h))
    .map((h) => `${counts.get(h)} ${HEALTH_LABELS[h][0].toLowerCase()}`)
    .join(' · ');
  return {
    endpoint: snapshot.endpoint,
    endpoints: endpointRows(snapshot.endpoints),
    version: snapshot.version,
    totalsLabel: [
      plural(t.servers, 'server'),
      // `tools` is what clients get, Switchboard's own built-ins included.
      plural(t.tools, 'tool') + (t.builtinTools ? ` (${t.builtinTools} built-in)` : ''),
      plural(t.prompts, 'prompt'),
      plural(t.resources, 'resource'),
    ].join(' · '),
    healthSummary,
    overall: overallHealth(snapshot.servers),
    configError: configErrorText(snapshot.configError),
    reloadNotes: snapshot.lastReload?.errors ?? [],
    servers,
  };
}
