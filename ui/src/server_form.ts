// The add/edit server form's model: a server definition (the JSON it has in
// the config file) ↔ the fields a person types. Pure functions, unit-tested
// without a DOM; setup.ts lays the form out. The hub validates what is sent
// with the config loader and answers its words; this file only turns the
// text fields into JSON and says which line is malformed.
//
// Secrets: the hub shows secret-looking values as `***` (GET .../config);
// a `***` left untouched is sent back as is, and the hub keeps the value
// that was there.

export type Transport = 'stdio' | 'http';

export interface ServerForm {
  mode: 'add' | 'edit';
  /** The server id (the name in `mcpServers`); fixed when editing. */
  id: string;
  transport: Transport;
  command: string;
  /** One argument per line. */
  args: string;
  /** `NAME=value`, one per line. */
  env: string;
  url: string;
  /** `Name: value`, one per line. */
  headers: string;
  enabled: boolean;
  /** The definition's other fields (cwd, disabledTools, timeouts, ...), kept as they are. */
  extra: Record<string, unknown>;
  /** The hub's (or the form's) refusal, shown next to the form. */
  error: string | null;
  /** Set while saving or removing. */
  busy: boolean;
  /** Set after the first click on "Remove": the second one removes. */
  confirmRemove: boolean;
}

const OWN_FIELDS = new Set(['command', 'args', 'env', 'url', 'headers', 'enabled']);

export function emptyForm(): ServerForm {
  return {
    mode: 'add',
    id: '',
    transport: 'stdio',
    command: '',
    args: '',
    env: '',
    url: '',
    headers: '',
    enabled: true,
    extra: {},
    error: null,
    busy: false,
    confirmRemove: false,
  };
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  // A keyring reference (`{"keyring": "name"}`) or a number: shown as JSON.
  return JSON.stringify(value);
}

function pairs(value: unknown, sep: string): string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return '';
  return Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${k}${sep}${text(v)}`)
    .join('\n');
}

/** The form for editing server `id` whose definition (as the hub shows it) is `def`. */
export function formFromDefinition(id: string, def: Record<string, unknown>): ServerForm {
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(def)) {
    if (!OWN_FIELDS.has(k)) extra[k] = v;
  }
  const args = Array.isArray(def.args) ? def.args.map(text).join('\n') : '';
  return {
    ...emptyForm(),
    mode: 'edit',
    id,
    transport: typeof def.url === 'string' ? 'http' : 'stdio',
    command: text(def.command),
    args,
    env: pairs(def.env, '='),
    url: text(def.url),
    headers: pairs(def.headers, ': '),
    enabled: def.enabled !== false,
    extra,
  };
}

/** A value typed in a field: JSON objects (a keyring reference) are sent as JSON. */
function value(typed: string): unknown {
  const t = typed.trim();
  if (t.startsWith('{') && t.endsWith('}')) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return typed;
    }
  }
  return typed;
}

function parsePairs(
  field: string,
  body: string,
  sep: string,
  example: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  const out: Record<string, unknown> = {};
  const lines = body.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    const at = line.indexOf(sep);
    const name = at > 0 ? line.slice(0, at).trim() : '';
    if (!name) {
      return { ok: false, error: `${field}, line ${i + 1}: expected ${example}` };
    }
    out[name] = value(line.slice(at + sep.length).trim());
  }
  return { ok: true, value: out };
}

export type Built = { ok: true; id: string; definition: Record<string, unknown> } | { ok: false; error: string };

/** The definition the form describes, or what is wrong with a field. */
export function definitionFromForm(form: ServerForm): Built {
  const id = form.id.trim();
  if (!id) return { ok: false, error: 'Give the server a name.' };
  const definition: Record<string, unknown> = {};
  if (form.transport === 'stdio') {
    if (!form.command.trim()) return { ok: false, error: 'Give the command that starts the server.' };
    definition.command = form.command.trim();
    const args = form.args.split(/\r?\n/).filter((a) => a.trim() !== '');
    if (args.length > 0) definition.args = args;
    const env = parsePairs('Environment', form.env, '=', 'NAME=value');
    if (!env.ok) return env;
    if (Object.keys(env.value).length > 0) definition.env = env.value;
  } else {
    if (!form.url.trim()) return { ok: false, error: "Give the server's URL." };
    definition.url = form.url.trim();
    const headers = parsePairs('Headers', form.headers, ':', 'Name: value');
    if (!headers.ok) return headers;
    if (Object.keys(headers.value).length > 0) definition.headers = headers.value;
  }
  for (const [k, v] of Object.entries(form.extra)) {
    // `cwd` only means something for a command.
    if (form.transport === 'http' && k === 'cwd') continue;
    definition[k] = v;
  }
  if (!form.enabled) definition.enabled = false;
  return { ok: true, id, definition };
}
