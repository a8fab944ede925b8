// The control API's JSON, as the hub serves it (camelCase). Fields marked
// optional are newer than some hubs: render them when present, tolerate absence.

export type ServerState =
  | 'disabled'
  | 'idle'
  | 'starting'
  | 'ready'
  | 'sleeping'
  | 'failed'
  | 'authRequired';

export type RefreshTrigger =
  | 'startup'
  | 'firstUse'
  | 'ttl'
  | 'notification'
  | 'poll'
  | 'manual'
  | 'reload';

export type Health = 'healthy' | 'degraded' | 'down' | 'unknown';

export interface LastChange {
  at: string;
  /** What found the change. */
  trigger?: RefreshTrigger | null;
  added?: string[];
  removed?: string[];
  modified?: string[];
}

export interface Breaker {
  state: 'closed' | 'open' | 'halfOpen';
  retryAt?: string | null;
}

export interface AuthSnapshot {
  /** The server uses OAuth. */
  required: boolean;
  /** Tokens are stored for it. */
  loggedIn: boolean;
  /** Where tokens are kept. */
  keyring?: string;
  /** A login waits for the browser. */
  loginPending?: boolean;
  /** What to do or what went wrong, for people. */
  message?: string | null;
}

export interface ServerSnapshot {
  id: string;
  transport: 'stdio' | 'http' | string;
  enabled: boolean;
  state: ServerState | string;
  toolCount: number;
  promptCount: number;
  resourceCount: number;
  resourceTemplateCount: number;
  listedAt: string | null;
  refreshTrigger: RefreshTrigger | null;
  ttlExpiresAt: string | null;
  stale: boolean;
  lastError: string | null;
  lastOkAt: string | null;
  lastFailureAt: string | null;
  consecutiveFailures: number;
  pid: number | null;
  serverName: string | null;
  serverVersion: string | null;
  protocolVersion: string | null;
  stderrTail: string[];
  // Newer fields.
  health?: Health | null;
  nextPollAt?: string | null;
  lastChange?: LastChange | null;
  breaker?: Breaker | null;
  unverified?: boolean;
  /** Smoothed latency of successful requests. */
  latencyMs?: number | null;
  /** OAuth state of a remote server (null for stdio servers; newer hubs). */
  auth?: AuthSnapshot | null;
}

export interface ConfigError {
  kind: 'read' | 'invalid' | 'env' | string;
  path?: string;
  line?: number;
  column?: number;
  message: string;
  name?: string;
  value?: string;
}

export interface ReloadResult {
  at?: string;
  added?: string[];
  changed?: string[];
  updated?: string[];
  removed?: string[];
  unchanged?: string[];
  errors?: string[];
}

export interface Totals {
  servers: number;
  tools: number;
  prompts: number;
  resources: number;
}

export interface SessionSnapshot {
  client: string | null;
  lastListedAt?: string | null;
  notifiedAt?: string | null;
  behind?: boolean;
}

export interface HubSnapshot {
  version: string;
  endpoint: string;
  configPath: string | null;
  configError: ConfigError | null;
  lastReload: ReloadResult | null;
  startedAt: string | null;
  generatedAt: string | null;
  servers: ServerSnapshot[];
  totals: Totals;
  sessions: SessionSnapshot[];
}

export interface LogEvent {
  at: string;
  level: string;
  message: string;
}

export interface LoginStarted {
  id: string;
  ok: boolean;
  authorizationUrl: string;
  redirectUri?: string;
}

export interface ServerLogs {
  id: string;
  stderr: string[];
  events: LogEvent[];
}
