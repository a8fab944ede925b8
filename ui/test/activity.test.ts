import { describe, expect, it } from 'vitest';
import { activityRows, callDuration, emptyActivity, mergeCalls, MAX_ROWS } from '../src/activity';
import type { ActivityEntry } from '../src/api.gen';

function entry(seq: number, overrides: Partial<ActivityEntry> = {}): ActivityEntry {
  return {
    seq,
    time: '2026-11-30T19:00:00.000Z',
    method: 'tools/call',
    name: 'notes__echo',
    client: 'claude-code',
    session: 's1',
    endpoint: '/mcp',
    profile: null,
    server: 'notes',
    durationMs: 12.4,
    outcome: 'ok',
    error: null,
    argumentBytes: 10,
    resultBytes: 20,
    ...overrides,
  };
}

describe('activity rows', () => {
  it('say when, who, where, how long and how it ended', () => {
    const now = Date.parse('2026-11-30T19:03:00.000Z');
    const rows = activityRows(
      [entry(2, { outcome: 'error', error: "server 'notes': boom", server: null, client: null }), entry(1)],
      now,
    );
    expect(rows.map((r) => [r.seq, r.when, r.client, r.server, r.duration, r.outcome, r.error])).toEqual([
      [2, '3 min ago', '—', '—', '12 ms', 'error', "server 'notes': boom"],
      [1, '3 min ago', 'claude-code', 'notes', '12 ms', 'ok', null],
    ]);
  });

  it('durations read well', () => {
    expect(callDuration(0.42)).toBe('0.4 ms');
    expect(callDuration(250)).toBe('250 ms');
    expect(callDuration(3200)).toBe('3.2 s');
  });
});

describe('code mode runs', () => {
  it('list the calls of a run under it, in the order they were made', () => {
    const now = Date.parse('2026-11-30T19:03:00.000Z');
    const calls = [
      entry(6, { name: 'notes__echo' }),
      entry(5, { name: 'switchboard__run_code', server: 'switchboard', run: 'r1-1' }),
      entry(4, { name: 'b__second', server: 'b', run: 'r1-1' }),
      entry(3, { name: 'a__first', server: 'a', run: 'r1-1', outcome: 'error', error: 'boom' }),
      entry(2, { name: 'c__orphan', server: 'c', run: 'r1-0' }),
      entry(1),
    ];
    const rows = activityRows(calls, now);
    expect(rows.map((r) => [r.seq, r.name, r.inner, r.innerCalls])).toEqual([
      [6, 'notes__echo', false, 0],
      [5, 'switchboard__run_code', false, 2],
      [3, 'a__first', true, 0],
      [4, 'b__second', true, 0],
      // Its run is not listed: it stays where it is, still marked.
      [2, 'c__orphan', true, 0],
      [1, 'notes__echo', false, 0],
    ]);
  });
});

describe('merging polls', () => {
  it('puts new calls first, skips ones it has, and keeps at most MAX_ROWS', () => {
    let state = mergeCalls(emptyActivity(), { calls: [entry(2), entry(1)], dropped: 0 });
    state = mergeCalls(state, { calls: [entry(3), entry(2)], dropped: 4 });
    expect(state.calls.map((c) => c.seq)).toEqual([3, 2, 1]);
    expect(state.dropped).toBe(4);
    expect(state.loaded).toBe(true);
    const many = Array.from({ length: MAX_ROWS + 10 }, (_, i) => entry(1000 - i));
    expect(mergeCalls(state, { calls: many, dropped: 0 }).calls.length).toBe(MAX_ROWS);
  });
});
