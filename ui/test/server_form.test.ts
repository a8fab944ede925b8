import { describe, expect, it } from 'vitest';
import { definitionFromForm, emptyForm, formFromDefinition } from '../src/server_form';

describe('the server form', () => {
  it('round-trips a command definition, keeping the fields it does not show', () => {
    const def = {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_TOKEN: '***', LOG: 'debug' },
      disabledTools: ['delete_repo'],
      cwd: '/tmp',
    };
    const form = formFromDefinition('github', def);
    expect(form).toMatchObject({
      mode: 'edit',
      id: 'github',
      transport: 'stdio',
      command: 'npx',
      args: '-y\n@modelcontextprotocol/server-github',
      env: 'GITHUB_TOKEN=***\nLOG=debug',
      enabled: true,
    });
    const built = definitionFromForm(form);
    expect(built).toEqual({ ok: true, id: 'github', definition: def });
  });

  it('round-trips a remote definition with headers, off, and a keyring reference', () => {
    const def = {
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: '***', 'X-Team': { keyring: 'team' } },
      enabled: false,
    };
    const form = formFromDefinition('remote', def);
    expect(form.transport).toBe('http');
    expect(form.headers).toBe('Authorization: ***\nX-Team: {"keyring":"team"}');
    expect(form.enabled).toBe(false);
    expect(definitionFromForm(form)).toEqual({ ok: true, id: 'remote', definition: def });
  });

  it('builds a new server from typed fields, skipping blank lines', () => {
    const form = {
      ...emptyForm(),
      id: ' mine ',
      command: 'uvx',
      args: 'mcp-server-time\n\n--local-timezone=UTC\n',
      env: '\nTZ = UTC\n',
    };
    expect(definitionFromForm(form)).toEqual({
      ok: true,
      id: 'mine',
      definition: { command: 'uvx', args: ['mcp-server-time', '--local-timezone=UTC'], env: { TZ: 'UTC' } },
    });
    // A value may hold the separator.
    const url = { ...emptyForm(), id: 'r', transport: 'http' as const, url: 'http://x', headers: 'A: b: c' };
    expect(definitionFromForm(url)).toEqual({ ok: true, id: 'r', definition: { url: 'http://x', headers: { A: 'b: c' } } });
  });

  it('says which field is missing or which line is malformed', () => {
    expect(definitionFromForm({ ...emptyForm(), command: 'x' })).toEqual({ ok: false, error: 'Give the server a name.' });
    expect(definitionFromForm({ ...emptyForm(), id: 'a' })).toEqual({
      ok: false,
      error: 'Give the command that starts the server.',
    });
    expect(definitionFromForm({ ...emptyForm(), id: 'a', transport: 'http' })).toEqual({
      ok: false,
      error: "Give the server's URL.",
    });
    expect(definitionFromForm({ ...emptyForm(), id: 'a', command: 'x', env: 'A=1\nnope' })).toEqual({
      ok: false,
      error: 'Environment, line 2: expected NAME=value',
    });
    expect(
      definitionFromForm({ ...emptyForm(), id: 'a', transport: 'http', url: 'http://x', headers: ': v' }),
    ).toEqual({ ok: false, error: 'Headers, line 1: expected Name: value' });
  });

  it('switching a command server to a URL drops what only commands use', () => {
    const form = formFromDefinition('s', { command: 'x', cwd: '/tmp', disabledTools: ['a'] });
    const built = definitionFromForm({ ...form, transport: 'http', url: 'http://127.0.0.1:1/mcp' });
    expect(built).toEqual({ ok: true, id: 's', definition: { url: 'http://127.0.0.1:1/mcp', disabledTools: ['a'] } });
  });
});
