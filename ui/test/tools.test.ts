import { describe, expect, it, vi } from 'vitest';
import { createTools, tokensLabel, toolsApi, toolsKey } from '../src/tools';
import { firstLine, matchedLabel, searchPath } from '../src/search';
import { server, snapshot } from './fixtures';

describe('tools', () => {
  it('says token counts briefly', () => {
    expect(tokensLabel(0)).toBe('0 tokens');
    expect(tokensLabel(1)).toBe('1 token');
    expect(tokensLabel(950)).toBe('950 tokens');
    expect(tokensLabel(1234)).toBe('1.2k tokens');
    expect(tokensLabel(9999)).toBe('10k tokens');
    expect(tokensLabel(109_400)).toBe('109k tokens');
    expect(tokensLabel(null)).toBe('counting…');
  });

  it('keys a server by what changes when its tools do', () => {
    const before = snapshot([server({ id: 'a', toolCount: 2, toolTokens: 100 })]);
    const after = snapshot([server({ id: 'a', toolCount: 1, toolTokens: 60 })]);
    expect(toolsKey(before, 'a')).not.toBe(toolsKey(after, 'a'));
    expect(toolsKey(before, 'a')).toBe(toolsKey(snapshot([server({ id: 'a', toolCount: 2, toolTokens: 100 })]), 'a'));
    expect(toolsKey(before, 'gone')).toBeNull();
  });
});

describe('search', () => {
  it('builds the control API path with the query encoded', () => {
    expect(searchPath('  read a file & more ')).toBe('search?q=read%20a%20file%20%26%20more&limit=10');
    expect(searchPath('x', 3)).toBe('search?q=x&limit=3');
  });

  it('says which ranking found a result', () => {
    expect(matchedLabel('lexical').text).toBe('by words');
    expect(matchedLabel('semantic').text).toBe('by meaning');
    expect(matchedLabel('both').text).toBe('words + meaning');
    // An older hub that sends no `matched` ranked by words only.
    expect(matchedLabel(undefined).text).toBe('by words');
    expect(new Set(['lexical', 'semantic', 'both'].map((m) => matchedLabel(m as 'lexical').title)).size).toBe(3);
  });

  it('shows the first line of a description, cut', () => {
    expect(firstLine('One.\nTwo.')).toBe('One.');
    expect(firstLine('abcdef', 4)).toBe('abc…');
    expect(firstLine('')).toBe('');
  });

  it('asks again for a list while some of its tools are not counted yet', async () => {
    vi.useFakeTimers();
    const answers = [
      { server: 'a', listed: true, tools: [{ name: 't', description: '', enabled: true, tokens: null, arguments: [] }] },
      { server: 'a', listed: true, tools: [{ name: 't', description: '', enabled: true, tokens: 42, arguments: [] }] },
    ];
    const list = vi.spyOn(toolsApi, 'list').mockImplementation(() => Promise.resolve(answers.shift() ?? answers[0]));
    const tools = createTools({ update: () => undefined, run: () => Promise.resolve() });
    tools.actions.show('a');
    await vi.waitFor(() => expect(tools.state.data?.tools[0].tokens).toBeNull());
    // No snapshot needed: the counts may have come with one seen before.
    await vi.advanceTimersByTimeAsync(600);
    expect(tools.state.data?.tools[0].tokens).toBe(42);
    expect(list).toHaveBeenCalledTimes(2);
    // Counted: nothing more is asked.
    await vi.advanceTimersByTimeAsync(5000);
    expect(list).toHaveBeenCalledTimes(2);
    list.mockRestore();
    vi.useRealTimers();
  });
});
