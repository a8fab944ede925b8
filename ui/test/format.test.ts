import { describe, expect, it } from 'vitest';
import { ago, duration, nameList, parseTime, plural, until } from '../src/format';

describe('duration', () => {
  it('picks the largest sensible unit', () => {
    expect(duration(0)).toBe('1 s');
    expect(duration(40_000)).toBe('40 s');
    expect(duration(59_400)).toBe('59 s');
    expect(duration(90_000)).toBe('2 min');
    expect(duration(3 * 60_000)).toBe('3 min');
    expect(duration(3_600_000)).toBe('1 h');
    expect(duration(2 * 3_600_000 + 5 * 60_000)).toBe('2 h 5 min');
    expect(duration(2 * 3_600_000 + 59.7 * 60_000)).toBe('3 h');
    expect(duration(86_400_000)).toBe('1 day');
    expect(duration(3 * 86_400_000)).toBe('3 days');
  });
});

describe('ago and until', () => {
  const now = 1_000_000_000;
  it('says how long ago', () => {
    expect(ago(now - 2_000, now)).toBe('just now');
    expect(ago(now + 3_000, now)).toBe('just now');
    expect(ago(now - 40_000, now)).toBe('40 s ago');
    expect(ago(now - 12 * 60_000, now)).toBe('12 min ago');
  });
  it('says how long until, and "now" once due', () => {
    expect(until(now + 3 * 60_000, now)).toBe('in 3 min');
    expect(until(now - 5_000, now)).toBe('now');
  });
});

describe('small helpers', () => {
  it('parses RFC 3339 and rejects junk', () => {
    expect(parseTime('2026-03-01T12:00:00.000Z')).toBe(Date.UTC(2026, 2, 1, 12));
    expect(parseTime(null)).toBeNull();
    expect(parseTime('yesterday-ish')).toBeNull();
  });
  it('pluralises', () => {
    expect(plural(1, 'tool')).toBe('1 tool');
    expect(plural(0, 'tool')).toBe('0 tools');
  });
  it('shortens long name lists', () => {
    expect(nameList(['a', 'b'])).toBe('a, b');
    expect(nameList(['a', 'b', 'c', 'd', 'e', 'f'], 3)).toBe('a, b, c and 3 more');
  });
});
