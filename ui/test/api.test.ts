import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callRoute, describeFailure, isSnapshot } from '../src/api';
import { server, snapshot } from './fixtures';

describe('API failures in words', () => {
  it('explains an unreachable hub', () => {
    expect(describeFailure('refresh github', null, null)).toBe(
      'Could not refresh github: Switchboard is not answering. Is it still running?',
    );
  });
  it('passes the hub explanation through', () => {
    expect(describeFailure('disable x', 404, { ok: false, error: "no server with id 'x'" })).toBe(
      "Could not disable x: no server with id 'x'",
    );
  });
  it('says login is not supported when the endpoint does not exist', () => {
    expect(describeFailure('log in to slack', 404, null)).toBe(
      'Could not log in to slack: this version of Switchboard does not support logging in yet.',
    );
  });
  it('explains a refused origin and a missing config file', () => {
    expect(describeFailure('refresh all servers', 403, { error: 'Origin "x" is not allowed' })).toMatch(/only accepts requests/);
    expect(describeFailure('enable x', 409, { ok: false, error: 'the hub was started without a config file' })).toMatch(
      /nowhere to save/,
    );
  });
  it('explains a page that is not signed in', () => {
    expect(describeFailure('disable x', 401, { error: 'changing the hub needs the control token' })).toBe(
      'Could not disable x: this page is not signed in, so it can only show the status. Open it with `switchboard dashboard` (or from the Switchboard app) to change servers.',
    );
  });
  it('falls back to the status code', () => {
    expect(describeFailure('refresh x', 500, null)).toBe('Could not refresh x (the hub answered HTTP 500).');
  });
});

describe('snapshot shape check', () => {
  it('accepts a snapshot and refuses anything else', () => {
    expect(isSnapshot(snapshot([server()]))).toBe(true);
    expect(isSnapshot(null)).toBe(false);
    expect(isSnapshot({ servers: [] })).toBe(false);
    expect(isSnapshot('<html>')).toBe(false);
  });
});

describe('callRoute', () => {
  const fetchMock = vi.fn();
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock);
    fetchMock.mockReset();
  });
  afterEach(() => vi.unstubAllGlobals());

  it('sends the route’s method to its path with the parameters encoded, and a body only when the route takes one', async () => {
    fetchMock.mockResolvedValue(new Response(JSON.stringify({ ok: true, reload: {} }), { status: 200 }));
    await callRoute('POST /api/v1/servers/{id}/tools/{tool}/disable', { id: 'a b', tool: 'x/y' }, 'hide x/y');
    expect(fetchMock).toHaveBeenCalledWith(
      'api/v1/servers/a%20b/tools/x%2Fy/disable',
      expect.not.objectContaining({ body: expect.anything() }),
    );
    expect(fetchMock.mock.calls[0][1].method).toBe('POST');
    await callRoute('PUT /api/v1/servers/{id}/tools/{tool}/override', { id: 'a', tool: 't' }, 'override t', {
      description: 'd',
    });
    expect(fetchMock.mock.calls[1][0]).toBe('api/v1/servers/a/tools/t/override');
    expect(fetchMock.mock.calls[1][1]).toMatchObject({ method: 'PUT', body: '{"description":"d"}' });
  });
});
