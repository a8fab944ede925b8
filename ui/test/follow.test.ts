import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { follow, type Connection } from '../src/api';
import { server, snapshot } from './fixtures';

/** A stand-in for the browser's EventSource that the test drives by hand. */
class FakeEventSource {
  static last: FakeEventSource | null = null;
  listeners = new Map<string, (e: MessageEvent<string>) => void>();
  onerror: (() => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeEventSource.last = this;
  }
  addEventListener(type: string, fn: (e: MessageEvent<string>) => void) {
    this.listeners.set(type, fn);
  }
  close() {
    this.closed = true;
  }
  emit(data: unknown) {
    this.listeners.get('snapshot')?.({ data: JSON.stringify(data) } as MessageEvent<string>);
  }
}

describe('following the hub', () => {
  const fetchMock = vi.fn();

  beforeEach(() => {
    vi.useFakeTimers();
    FakeEventSource.last = null;
    vi.stubGlobal('EventSource', FakeEventSource);
    vi.stubGlobal('fetch', fetchMock);
    fetchMock.mockReset();
  });

  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('takes snapshots from the event stream', () => {
    const seen: string[] = [];
    const states: Connection[] = [];
    const stop = follow((s) => seen.push(s.servers[0]!.id), (c) => states.push(c));
    expect(FakeEventSource.last?.url).toBe('api/v1/events');
    FakeEventSource.last?.emit(snapshot([server({ id: 'one' })]));
    expect(seen).toEqual(['one']);
    expect(states).toEqual(['live']);
    expect(fetchMock).not.toHaveBeenCalled();
    stop();
    expect(FakeEventSource.last?.closed).toBe(true);
  });

  it('polls /status while the stream is down, then goes back to the stream', async () => {
    fetchMock.mockResolvedValue(new Response(JSON.stringify(snapshot([server({ id: 'polled' })])), { status: 200 }));
    const seen: string[] = [];
    const states: Connection[] = [];
    const stop = follow((s) => seen.push(s.servers[0]!.id), (c) => states.push(c), 2000);
    const first = FakeEventSource.last!;
    first.onerror?.();
    expect(first.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchMock).toHaveBeenCalledWith('api/v1/status', expect.objectContaining({ method: 'GET' }));
    expect(seen).toEqual(['polled']);
    expect(states).toEqual(['polling']);
    await vi.advanceTimersByTimeAsync(2000);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    // The stream is tried again after 5 s; once it is back, polling stops.
    await vi.advanceTimersByTimeAsync(3000);
    const second = FakeEventSource.last!;
    expect(second).not.toBe(first);
    second.emit(snapshot([server({ id: 'streamed' })]));
    const calls = fetchMock.mock.calls.length;
    await vi.advanceTimersByTimeAsync(10000);
    expect(fetchMock.mock.calls.length).toBe(calls);
    expect(seen.at(-1)).toBe('streamed');
    expect(states.at(-1)).toBe('live');
    stop();
  });

  it('says in words when the hub does not answer', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    const states: [Connection, string | undefined][] = [];
    const stop = follow(() => undefined, (c, why) => states.push([c, why]));
    FakeEventSource.last!.onerror?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(states).toEqual([
      ['offline', 'Could not read the status: Switchboard is not answering. Is it still running?'],
    ]);
    stop();
  });
});
