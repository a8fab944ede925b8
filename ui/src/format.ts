// Time and count wording: what a person reads instead of raw timestamps.
// Every function takes `now` (ms since the epoch) so tests pin the clock.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Parses an RFC 3339 timestamp; null for absent or unparsable values. */
export function parseTime(value: string | null | undefined): number | null {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** A span of time in the largest sensible unit: "40 s", "3 min", "2 h 5 min", "3 days". */
export function duration(ms: number): string {
  const abs = Math.max(0, Math.round(ms));
  if (abs < MINUTE) return `${Math.max(1, Math.round(abs / SECOND))} s`;
  if (abs < HOUR) return `${Math.round(abs / MINUTE)} min`;
  if (abs < DAY) {
    const hours = Math.floor(abs / HOUR);
    const minutes = Math.round((abs - hours * HOUR) / MINUTE);
    return minutes === 0 || minutes === 60 ? `${minutes === 60 ? hours + 1 : hours} h` : `${hours} h ${minutes} min`;
  }
  const days = Math.round(abs / DAY);
  return days === 1 ? '1 day' : `${days} days`;
}

/** How long ago: "just now", "40 s ago", "3 min ago". A time slightly in the future (clock skew) is "just now". */
export function ago(then: number, now: number): string {
  const delta = now - then;
  if (delta < 5 * SECOND) return 'just now';
  return `${duration(delta)} ago`;
}

/** How long until: "in 3 min"; "now" once due. */
export function until(then: number, now: number): string {
  const delta = then - now;
  if (delta < SECOND) return 'now';
  return `in ${duration(delta)}`;
}

/** "1 tool", "3 tools". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** A local clock time for tooltips: "14:03:12". */
export function clock(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** At most `max` names, then "+N more". */
export function nameList(names: readonly string[], max = 4): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}
