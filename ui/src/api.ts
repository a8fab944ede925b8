// The control API (same origin as the page) and the live snapshot feed.
// Failures become `ApiError`s whose message is meant for a person.

import type { ApiRoute, ApiRoutes, HubSnapshot } from './api.gen';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const BASE = 'api/v1';

/** Turns a failed response into a sentence (exported for tests). */
export function describeFailure(action: string, status: number | null, body: unknown): string {
  const detail =
    body && typeof body === 'object' && 'error' in body && typeof (body as { error: unknown }).error === 'string'
      ? (body as { error: string }).error
      : null;
  if (status === null) {
    return `Could not ${action}: Switchboard is not answering. Is it still running?`;
  }
  if (status === 401) {
    return `Could not ${action}: this page is not signed in, so it can only show the status. Open it with \`switchboard dashboard\` (or from the Switchboard app) to change servers.`;
  }
  if (status === 403) {
    return `Could not ${action}: Switchboard only accepts requests from pages it serves itself on this computer.`;
  }
  if (status === 404 && /log (in|out)/.test(action) && !detail?.startsWith('no server')) {
    return `Could not ${action}: this version of Switchboard does not support logging in yet.`;
  }
  if (status === 409) {
    return `Could not ${action}: Switchboard was started without a config file, so there is nowhere to save the change.`;
  }
  if (detail) return `Could not ${action}: ${detail}`;
  return `Could not ${action} (the hub answered HTTP ${status}).`;
}

/** One control API request; a JSON `body` is sent when given (exported for setup.ts). */
export async function call<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  action: string,
  body?: unknown,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${BASE}/${path}`, {
      method,
      headers:
        body === undefined
          ? { Accept: 'application/json' }
          : { Accept: 'application/json', 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(describeFailure(action, null, null), null);
  }
  let answer: unknown = null;
  try {
    answer = await response.json();
  } catch {
    answer = null;
  }
  const refused = answer && typeof answer === 'object' && 'ok' in answer && (answer as { ok: unknown }).ok === false;
  if (!response.ok || refused) {
    throw new ApiError(describeFailure(action, response.status, answer), response.status);
  }
  return answer as T;
}

/** The body a route takes: no argument for a route that takes none. */
type BodyOf<R extends ApiRoute> = [ApiRoutes[R]['body']] extends [never] ? [] : [body: ApiRoutes[R]['body']];

/**
 * One control API request typed by its endpoint (`ApiRoutes`, generated from
 * the hub's route table): `params` fill the path's `{name}` parts (encoded);
 * the answer has the route's answer type.
 */
export function callRoute<R extends ApiRoute>(
  route: R,
  params: Record<string, string>,
  action: string,
  ...body: BodyOf<R>
): Promise<ApiRoutes[R]['answer']> {
  const space = route.indexOf(' ');
  const method = route.slice(0, space) as 'GET' | 'POST' | 'PUT' | 'DELETE';
  const path = route
    .slice(space + 1)
    .replace(/^\/api\/v1\//, '')
    .replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  return call<ApiRoutes[R]['answer']>(method, path, action, body[0]);
}

/** A snapshot, as far as the page relies on its shape. */
export function isSnapshot(value: unknown): value is HubSnapshot {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as HubSnapshot).servers) &&
    typeof (value as HubSnapshot).endpoint === 'string'
  );
}

async function status(): Promise<HubSnapshot> {
  const body = await call<unknown>('GET', 'status', 'read the status');
  if (!isSnapshot(body)) {
    throw new ApiError('Could not read the status: the answer did not come from a Switchboard hub.', null);
  }
  return body;
}

export const api = {
  status,
  setEnabled: (id: string, enabled: boolean) =>
    enabled
      ? callRoute('POST /api/v1/servers/{id}/enable', { id }, `enable ${id}`)
      : callRoute('POST /api/v1/servers/{id}/disable', { id }, `disable ${id}`),
  refresh: (id: string) => callRoute('POST /api/v1/servers/{id}/refresh', { id }, `refresh ${id}`),
  refreshAll: () => callRoute('POST /api/v1/refresh', {}, 'refresh all servers'),
  login: (id: string) => callRoute('POST /api/v1/servers/{id}/login', { id }, `log in to ${id}`),
  logout: (id: string) => callRoute('POST /api/v1/servers/{id}/logout', { id }, `log out of ${id}`),
  logs: (id: string) => callRoute('GET /api/v1/servers/{id}/logs', { id }, `read the logs of ${id}`),
};

export type Connection = 'live' | 'polling' | 'offline';

/**
 * Follows the snapshot: Server-Sent Events from /events, falling back to
 * polling /status while the stream is down (and trying the stream again).
 */
export function follow(
  onSnapshot: (s: HubSnapshot) => void,
  onConnection: (c: Connection, why?: string) => void,
  pollMs = 2000,
): () => void {
  let source: EventSource | null = null;
  let pollTimer: ReturnType<typeof setTimeout> | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;

  const poll = async () => {
    pollTimer = null;
    if (stopped || source) return;
    try {
      onSnapshot(await api.status());
      onConnection('polling');
    } catch (err) {
      onConnection('offline', err instanceof Error ? err.message : String(err));
    }
    if (!stopped && !source) pollTimer = setTimeout(poll, pollMs);
  };

  const open = () => {
    retryTimer = null;
    if (stopped || typeof EventSource === 'undefined') {
      void poll();
      return;
    }
    const es = new EventSource(`${BASE}/events`);
    source = es;
    es.addEventListener('snapshot', (event) => {
      try {
        const snapshot: unknown = JSON.parse((event as MessageEvent<string>).data);
        if (!isSnapshot(snapshot)) return;
        onSnapshot(snapshot);
        onConnection('live');
      } catch {
        // A malformed event is skipped; the next one replaces it.
      }
    });
    es.onerror = () => {
      es.close();
      if (source === es) source = null;
      if (stopped) return;
      if (!pollTimer) void poll();
      retryTimer = setTimeout(open, 5000);
    };
  };

  open();
  return () => {
    stopped = true;
    source?.close();
    if (pollTimer) clearTimeout(pollTimer);
    if (retryTimer) clearTimeout(retryTimer);
  };
}
