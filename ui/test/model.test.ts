import { describe, expect, it } from 'vitest';
import {
  breakerText,
  ChangeTracker,
  configErrorText,
  dashboard,
  shortError,
  overallHealth,
  serverHealth,
  sandboxView,
  serverRow,
  staleness,
} from '../src/model';
import { NOW, at, server, snapshot } from './fixtures';

describe('staleness in words', () => {
  it('tells age, trigger, TTL left and next poll', () => {
    const s = server({ nextPollAt: at(240) });
    expect(staleness(s, NOW).text).toBe(
      'Listed 2 min ago by a periodic check · fresh for 3 min · next check in 4 min',
    );
  });

  it('says when the cache expired and that it refreshes on next use', () => {
    const s = server({ listedAt: at(-720), refreshTrigger: 'firstUse', ttlExpiresAt: at(-420) });
    expect(staleness(s, NOW).text).toBe(
      'Listed 12 min ago on first use · cache expired 7 min ago, refreshed on next use',
    );
  });

  it('flags stale lists with the number of failed refreshes', () => {
    const s = server({ stale: true, consecutiveFailures: 2, refreshTrigger: 'notification' });
    expect(staleness(s, NOW).text).toBe(
      'Listed 2 min ago after the server announced a change · stale: the last 2 refreshes failed · fresh for 3 min',
    );
  });

  it('explains a server that was never listed', () => {
    const base = { listedAt: null, ttlExpiresAt: null, refreshTrigger: null } as const;
    expect(staleness(server({ ...base, state: 'idle' }), NOW).text).toBe('Not listed yet: starts on first use');
    expect(staleness(server({ ...base, state: 'failed' }), NOW).text).toBe('Never listed: the server did not start');
    expect(staleness(server({ ...base, enabled: false, state: 'disabled' }), NOW).text).toBe('Not listed (disabled)');
    expect(staleness(server({ ...base, state: 'authRequired' }), NOW).text).toBe('Not listed: log in first');
  });
});

describe('health', () => {
  it('uses the hub health when present', () => {
    expect(serverHealth(server({ health: 'degraded' }))).toBe('degraded');
    expect(serverHealth(server({ enabled: false, state: 'disabled', health: 'unknown' }))).toBe('disabled');
  });

  it('derives health from state and failures on older hubs', () => {
    expect(serverHealth(server())).toBe('healthy');
    expect(serverHealth(server({ state: 'failed' }))).toBe('down');
    expect(serverHealth(server({ stale: true }))).toBe('degraded');
    expect(serverHealth(server({ state: 'idle', listedAt: null }))).toBe('unknown');
  });

  it('is down overall only when nothing works', () => {
    const ok = server();
    const broken = server({ id: 'b', health: 'down' });
    const off = server({ id: 'c', enabled: false, state: 'disabled' });
    expect(overallHealth([ok, broken])).toBe('degraded');
    expect(overallHealth([broken, off])).toBe('down');
    expect(overallHealth([ok, off])).toBe('healthy');
    expect(overallHealth([off])).toBe('disabled');
    expect(overallHealth([])).toBe('disabled');
  });
});

describe('server rows', () => {
  it('shows a recent last change with names and marks the row', () => {
    const row = serverRow(
      server({
        lastChange: { at: at(-90), trigger: 'poll', added: ['create_issue'], removed: ['old_x'], modified: [] },
      }),
      NOW,
    );
    expect(row.recentlyChanged).toBe(true);
    expect(row.lastChangeLabel).toBe('Last change 2 min ago (found by a periodic check): +create_issue, −old_x');
  });

  it('does not mark an old change', () => {
    const row = serverRow(server({ lastChange: { at: at(-3 * 3600), added: ['a'], removed: [], modified: [] } }), NOW);
    expect(row.recentlyChanged).toBe(false);
    expect(row.lastChangeLabel).toBe('Last change 3 h ago: +a');
  });

  it('words breaker and errors, and offers login only when needed', () => {
    const row = serverRow(
      server({
        state: 'failed',
        lastError: "server 'github' exited with code 4",
        consecutiveFailures: 3,
        breaker: { state: 'open', retryAt: at(40) },
      }),
      NOW,
    );
    expect(row.breaker).toBe('Paused after repeated failures; next try in 40 s');
    expect(breakerText(server({ breaker: { state: 'open', retryAt: at(-5) } }), NOW)).toBe(
      'Paused after repeated failures; tries again when next needed',
    );
    expect(breakerText(server({ breaker: { state: 'closed', retryAt: null } }), NOW)).toBeNull();
    expect(row.error).toBe("server 'github' exited with code 4 (failed 3 times in a row)");
    expect(row.canLogin).toBe(false);
    expect(row.canLogout).toBe(false);
  });

  it('offers log in and log out from the auth state', () => {
    const auth = (over: object) => ({ required: true, loggedIn: false, keyring: 'os', loginPending: false, message: null, ...over });
    expect(serverRow(server({ state: 'authRequired' }), NOW).canLogin).toBe(true);
    const needs = serverRow(server({ auth: auth({ message: 'Log in to use this server' }) }), NOW);
    expect([needs.canLogin, needs.canLogout, needs.authNote]).toEqual([true, false, 'Log in to use this server']);
    const pending = serverRow(server({ state: 'authRequired', auth: auth({ loginPending: true }) }), NOW);
    expect([pending.canLogin, pending.loginPending]).toEqual([true, true]);
    const done = serverRow(server({ auth: auth({ loggedIn: true }) }), NOW);
    expect([done.canLogin, done.canLogout]).toEqual([false, true]);
    const plain = serverRow(server({ auth: auth({ required: false }) }), NOW);
    expect([plain.canLogin, plain.canLogout]).toEqual([false, false]);
  });

  it('hides errors of disabled servers and counts of unlisted ones', () => {
    const row = serverRow(
      server({ enabled: false, state: 'disabled', lastError: 'old', listedAt: null, ttlExpiresAt: null }),
      NOW,
    );
    expect(row.error).toBeNull();
    expect(row.countsLabel).toBe('—');
    expect(row.healthLabel).toBe('Off');
    expect(row.stateLabel).toBe('Disabled');
  });

  it('carries the notes about the listing, none from older hubs', () => {
    const note = "tool 'switchboard__x' is not served on the merged endpoint";
    expect(serverRow(server({ notes: [note] }), NOW).notes).toEqual([note]);
    const { notes: _, ...older } = server({});
    expect(serverRow(older as ReturnType<typeof server>, NOW).notes).toEqual([]);
  });

  it('counts resources and templates together', () => {
    const row = serverRow(server({ resourceCount: 2, resourceTemplateCount: 1 }), NOW);
    expect(row.countsLabel).toBe('41 tools');
    expect(row.otherCountsLabel).toBe('2 prompts, 3 resources');
  });
});

describe('change tracker (hubs without lastChange)', () => {
  it('marks a row whose tool count changed while the page watched', () => {
    const tracker = new ChangeTracker();
    tracker.observe(snapshot([server({ toolCount: 2 })]), NOW - 60_000);
    tracker.observe(snapshot([server({ toolCount: 2 })]), NOW - 30_000);
    expect(serverRow(server({ toolCount: 2 }), NOW, tracker).lastChange).toBeNull();
    tracker.observe(snapshot([server({ toolCount: 3 })]), NOW - 10_000);
    const row = serverRow(server({ toolCount: 3 }), NOW, tracker);
    expect(row.recentlyChanged).toBe(true);
    expect(row.lastChangeLabel).toBe('Last change 10 s ago: tools 2 → 3');
  });

  it('does not count switching a server off and on as a change', () => {
    const tracker = new ChangeTracker();
    tracker.observe(snapshot([server({ toolCount: 2 })]), NOW - 60_000);
    tracker.observe(snapshot([server({ enabled: false, state: 'disabled', toolCount: 0 })]), NOW - 30_000);
    tracker.observe(snapshot([server({ toolCount: 2 })]), NOW);
    expect(serverRow(server({ toolCount: 2 }), NOW, tracker).lastChange).toBeNull();
  });

  it('leaves change detection to hubs that send lastChange', () => {
    const tracker = new ChangeTracker();
    tracker.observe(snapshot([server({ toolCount: 2, lastChange: null })]), NOW - 60_000);
    tracker.observe(snapshot([server({ toolCount: 3, lastChange: null })]), NOW);
    expect(serverRow(server({ toolCount: 3, lastChange: null }), NOW, tracker).lastChange).toBeNull();
  });

  it('does not count the first listing as a change', () => {
    const tracker = new ChangeTracker();
    tracker.observe(snapshot([server({ listedAt: null, toolCount: 0 })]), NOW - 60_000);
    tracker.observe(snapshot([server({ toolCount: 3 })]), NOW);
    expect(serverRow(server({ toolCount: 3 }), NOW, tracker).lastChange).toBeNull();
  });
});

describe('dashboard view', () => {
  it('summarises totals and health', () => {
    const view = dashboard(
      snapshot([server(), server({ id: 'broken', transport: 'stdio', state: 'failed' }), server({ id: 'off', enabled: false, state: 'disabled' })]),
      NOW,
    );
    expect(view.totalsLabel).toBe('3 servers · 82 tools · 0 prompts · 0 resources');
    const withBuiltins = snapshot([server()]);
    withBuiltins.totals = { ...withBuiltins.totals, tools: withBuiltins.totals.tools + 3, builtinTools: 3 };
    expect(dashboard(withBuiltins, NOW).totalsLabel).toBe('1 server · 44 tools (3 built-in) · 0 prompts · 0 resources');
    expect(view.healthSummary).toBe('1 healthy · 1 down · 1 off');
    expect(view.overall).toBe('degraded');
    expect(view.servers.map((r) => r.id)).toEqual(['github', 'broken', 'off']);
  });

  it('puts config errors in words with file, line and column', () => {
    expect(
      configErrorText({ kind: 'invalid', path: '/c/config.json', line: 3, column: 7, message: 'expected `,` or `}`' }),
    ).toBe(
      'The config file has an error, so Switchboard keeps running the last good configuration. /c/config.json:3:7 (line 3, column 7): expected `,` or `}`',
    );
    expect(configErrorText({ kind: 'read', path: '/c/config.json', message: 'permission denied' })).toBe(
      'Switchboard cannot read its config file /c/config.json: permission denied',
    );
    expect(configErrorText(null)).toBeNull();
  });
});

describe('errors in words', () => {
  it('keeps the hub sentence and only the last stderr line', () => {
    expect(
      shortError("server 'crashy' exited; stderr: 2026 INFO starting | 2026 INFO ready | fixture exiting after 1500 ms with code 4"),
    ).toBe("server 'crashy' exited. Its last output: “fixture exiting after 1500 ms with code 4”");
    expect(shortError('connection refused')).toBe('connection refused');
  });
  it('cuts very long errors', () => {
    const long = shortError('x'.repeat(500));
    expect(long.length).toBe(240);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('sandbox shield', () => {
  const box = (over: Record<string, unknown>) =>
    server({
      transport: 'stdio',
      sandbox: {
        profile: 'standard',
        enforced: true,
        mechanism: 'mount namespace (3 places hidden) + Landlock ABI 7',
        missing: null,
        droppedEnv: [],
        lastDenial: null,
        ...over,
      },
    });

  it('shows a contained server with its mechanism in the tooltip', () => {
    const view = sandboxView(box({ droppedEnv: ['GITHUB_TOKEN'] }));
    expect(view?.level).toBe('contained');
    expect(view?.hint).toContain('Landlock ABI 7');
    expect(view?.hint).toContain('GITHUB_TOKEN');
  });

  it('warns about an unsandboxed server and a partly enforced one', () => {
    expect(sandboxView(box({ profile: 'off', enforced: false, mechanism: 'none' }))?.level).toBe('off');
    const partial = sandboxView(box({ enforced: false, missing: 'AppArmor restricts unprivileged user namespaces' }));
    expect(partial?.level).toBe('partial');
    expect(partial?.hint).toContain('AppArmor');
  });

  it('shows nothing for a remote server or an older hub', () => {
    expect(sandboxView(box({ profile: 'off', enforced: false, mechanism: 'not applicable' }))).toBeNull();
    expect(sandboxView(server())).toBeNull();
  });
});
