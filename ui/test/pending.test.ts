import { describe, expect, it } from 'vitest';
import { argumentText, decision } from '../src/pending';

describe('pending calls', () => {
  it('map each choice to its control API request', () => {
    expect(decision('7', 'allow')).toEqual({ path: 'pending/7/allow', body: undefined });
    expect(decision('7', 'always')).toEqual({ path: 'pending/7/allow', body: { always: true } });
    expect(decision('7', 'deny')).toEqual({ path: 'pending/7/deny', body: undefined });
  });

  it('show arguments as one cut line of JSON', () => {
    expect(argumentText({ path: '/x', apiKey: '***' })).toBe('{"path":"/x","apiKey":"***"}');
    expect(argumentText({ text: 'a'.repeat(50) }, 20)).toBe('{"text":"aaaaaaaaaa…');
    expect(argumentText(null)).toBe('{}');
  });
});
