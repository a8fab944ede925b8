import { describe, expect, it } from 'vitest';
import type { RegistryServer } from '../src/api.gen';
import { defaultId, emptyRegistry, installBody } from '../src/registry';

const notes: RegistryServer = {
  name: 'com.example.notes/notes',
  version: '1.2.0',
  title: 'Notes',
  description: null,
  transports: ['streamable-http'],
  installed: false,
  installedAs: null,
  env: [{ name: 'LEVEL', description: null, required: false, secret: false, default: 'info' }],
  headers: [{ name: 'X-Notes-Key', description: null, required: true, secret: true, default: null }],
};

describe('registry install form', () => {
  it('names a server after the last part of its registry name, as the hub does', () => {
    expect(defaultId('io.github.modelcontextprotocol/server-memory')).toBe('server-memory');
    expect(defaultId('com.example/with.dots')).toBe('with-dots');
  });

  it('sends the values filled in, split into env and headers, and an id only when chosen', () => {
    const s = { ...emptyRegistry(), picked: notes, values: { 'X-Notes-Key': 'k', LEVEL: '' } };
    expect(installBody(s)).toEqual({ name: notes.name, env: {}, headers: { 'X-Notes-Key': 'k' } });
    expect(installBody({ ...s, id: ' mine ' })).toEqual({
      name: notes.name,
      id: 'mine',
      env: {},
      headers: { 'X-Notes-Key': 'k' },
    });
    expect(installBody({ ...s, id: 'notes' }).id).toBeUndefined();
  });
});
