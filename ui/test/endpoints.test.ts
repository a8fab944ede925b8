import { describe, expect, it } from 'vitest';
import { endpointRows } from '../src/endpoints';

describe('endpoints', () => {
  it('describe /mcp and each profile with tools and tokens, never a token', () => {
    const rows = endpointRows([
      { path: '/mcp', toolMode: 'all', tools: 12, toolTokens: 3456, tokensCounted: true },
      {
        path: '/profiles/work/mcp',
        toolMode: 'search',
        tools: 5,
        toolTokens: 0,
        tokensCounted: false,
        profile: { name: 'work', servers: ['github', 'jira'], hasToken: true },
      },
      {
        path: '/profiles/empty/mcp',
        toolMode: 'all',
        tools: 1,
        toolTokens: 80,
        tokensCounted: true,
        profile: { name: 'empty', servers: [], hasToken: false },
      },
      {
        path: '/mcp',
        toolMode: 'all',
        tools: 2,
        toolTokens: 90,
        tokensCounted: true,
        profile: { name: 'project:/w/acme', servers: ['jira'], hasToken: false, project: '/w/acme' },
      },
    ]);
    expect(rows).toEqual([
      { path: '/mcp', title: 'All servers', detail: 'all tools · 12 tools · ≈3,456 tokens' },
      {
        path: '/profiles/work/mcp',
        title: 'Profile work',
        detail: 'search mode · 5 tools · counting tokens… · servers: github, jira · needs its token',
      },
      {
        path: '/profiles/empty/mcp',
        title: 'Profile empty',
        detail: 'all tools · 1 tool · ≈80 tokens · no servers · no token',
      },
      {
        path: '/mcp',
        title: 'Project /w/acme',
        detail: 'all tools · 2 tools · ≈90 tokens · servers: jira · for clients whose roots name this folder',
      },
    ]);
  });

  it('names code mode', () => {
    const [row] = endpointRows([
      { path: '/mcp', toolMode: 'code', tools: 6, toolTokens: 700, tokensCounted: true },
    ]);
    expect(row.detail).toBe('code mode · 6 tools · ≈700 tokens');
  });

  it('is empty without endpoints', () => {
    expect(endpointRows(undefined)).toEqual([]);
    expect(endpointRows([])).toEqual([]);
  });
});
