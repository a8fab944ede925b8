import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerTool } from '../src/api.gen';
import { checkDraft, draftOf, overrideApi, overrideSummary } from '../src/override_form';
import { createTools, toolsApi } from '../src/tools';

const tool = (over: Partial<ServerTool> = {}): ServerTool => ({
  name: 'search',
  description: 'Search issues',
  enabled: true,
  tokens: 40,
  arguments: ['q', 'limit', 'project'],
  ...over,
});

describe('override form', () => {
  afterEach(() => vi.restoreAllMocks());

  it('starts from the tool override, or blank', () => {
    expect(draftOf(tool())).toEqual({ name: '', description: '', defaults: '', hidden: [] });
    const o = { name: 'find', arguments: { project: 'ACME' }, hideArguments: ['project'] };
    expect(draftOf(tool({ toolOverride: o }))).toEqual({
      name: 'find',
      description: '',
      defaults: '{"project":"ACME"}',
      hidden: ['project'],
    });
  });

  it('builds the body from what was filled in, and blank removes', () => {
    const draft = { name: ' find ', description: 'Find ACME issues', defaults: '{"project": "ACME", "limit": 5}', hidden: ['project'] };
    expect(checkDraft(draft, tool())).toEqual({
      ok: true,
      body: { name: 'find', description: 'Find ACME issues', arguments: { project: 'ACME', limit: 5 }, hideArguments: ['project'] },
    });
    expect(checkDraft({ name: '', description: ' ', defaults: '  ', hidden: [] }, tool())).toEqual({ ok: true, body: null });
  });

  it('refuses what the hub would refuse, saying why', () => {
    const blank = { name: '', description: '', defaults: '', hidden: [] as string[] };
    const error = (patch: Partial<typeof blank>, t = tool()) => {
      const r = checkDraft({ ...blank, ...patch }, t);
      return r.ok ? null : r.error;
    };
    expect(error({ name: 'has space' })).toContain('may only have letters');
    expect(error({ name: 'x'.repeat(65) })).toContain('1 to 64');
    expect(error({ defaults: '{limit: 5}' })).toContain('must be a JSON object');
    expect(error({ defaults: '[1]' })).toContain('must be a JSON object');
    expect(error({ defaults: '{"nope": 1}' })).toBe('"nope" is no argument of search (its arguments: q, limit, project).');
    expect(error({ hidden: ['project'] })).toContain('"project" is hidden but has no default value');
    // A tool whose schema names no arguments: defaults are not checked here (the hub checks).
    expect(error({ defaults: '{"x": 1}' }, tool({ arguments: [] }))).toBeNull();
  });

  it('sums an override up for the row', () => {
    expect(overrideSummary(undefined)).toBe('');
    expect(overrideSummary({ name: 'find', description: 'd', arguments: { a: 1, b: 2 }, hideArguments: ['b'] })).toBe(
      'shown as find · own description · 2 defaults · hides b',
    );
    expect(overrideSummary({ arguments: { a: 1 } })).toBe('1 default');
  });

  it('saves through the control API and shows a refusal in the form', async () => {
    const listed = { server: 'jira', listed: true, tools: [tool()] };
    vi.spyOn(toolsApi, 'list').mockResolvedValue(listed);
    const put = vi.spyOn(overrideApi, 'put').mockRejectedValueOnce(new Error('Could not save: no'));
    const run = async (_key: string, work: () => Promise<unknown>) => {
      await work().catch(() => undefined);
    };
    const tools = createTools({ update: () => undefined, run });
    tools.actions.show('jira');
    await vi.waitFor(() => expect(tools.state.data).not.toBeNull());
    tools.actions.editOverride('search');
    expect(tools.state.editing?.draft.name).toBe('');
    // Refused here: nothing is sent.
    tools.actions.changeOverride({ name: '', description: '', defaults: '', hidden: ['q'] });
    tools.actions.saveOverride('jira');
    expect(tools.state.editing?.error).toContain('"q" is hidden');
    expect(put).not.toHaveBeenCalled();
    // Refused by the hub: its words in the form, which stays open.
    tools.actions.changeOverride({ name: 'find', description: '', defaults: '', hidden: [] });
    tools.actions.saveOverride('jira');
    await vi.waitFor(() => expect(tools.state.editing?.error).toBe('Could not save: no'));
    expect(put).toHaveBeenCalledWith('jira', 'search', { name: 'find' });
    // Saved: the form closes.
    put.mockResolvedValueOnce({ ok: true, reload: { changed: [], added: [], removed: [], errors: [] } } as never);
    tools.actions.saveOverride('jira');
    await vi.waitFor(() => expect(tools.state.editing).toBeNull());
    // Blank: removed.
    const remove = vi.spyOn(overrideApi, 'remove').mockResolvedValue({ ok: true } as never);
    tools.actions.editOverride('search');
    tools.actions.saveOverride('jira');
    await vi.waitFor(() => expect(remove).toHaveBeenCalledWith('jira', 'search'));
  });
});
