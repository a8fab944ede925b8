// Tool pinning in the dashboard (see docs/security.md, "Tool pinning"): per
// server, the tools held (or, with toolPinning "warn", listed) although their
// definition changed since it was approved, a line diff of the approved and
// the current definition, and an Approve button; and the new tools. The
// button approves the definition shown, by its hash: if the server changed it
// again since, the hub refuses (409) and nothing is approved. A tool whose
// definition scanning found text aimed at the model is held even on its first
// listing; its findings (rule and excerpt) are shown highlighted above its
// definition.

import { html, nothing, type TemplateResult } from 'lit-html';
import { call } from './api';
import type {
  ApproveResponse,
  ApproveTool,
  HeldDefinition,
  HeldResponse,
  HeldTool,
  HubSnapshot,
  ToolFinding,
} from './api.gen';

/** What the page knows about one server's pins. */
export interface ServerPins {
  held: HeldTool[];
  changed: HeldTool[];
  newTools: string[];
  /** Both definitions of each held or changed tool, once loaded. */
  defs: HeldDefinition[] | null;
  /** Why the definitions could not be loaded. */
  defsError: string | null;
}

export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** `value` as JSON with object keys sorted and two-space indentation. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) out[key] = sort((v as Record<string, unknown>)[key]);
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(value), null, 2) ?? 'null';
}

/** Most lines compared with a full diff; beyond it, all old lines then all new ones. */
const MAX_CELLS = 250_000;

/** A line diff (longest common subsequence) of two texts. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length * b.length > MAX_CELLS) {
    return [
      ...a.map((text) => ({ kind: 'removed' as const, text })),
      ...b.map((text) => ({ kind: 'added' as const, text })),
    ];
  }
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      out.push({ kind: 'removed', text: a[i]! });
      i++;
    } else {
      out.push({ kind: 'added', text: b[j]! });
      j++;
    }
  }
  while (i < a.length) out.push({ kind: 'removed', text: a[i++]! });
  while (j < b.length) out.push({ kind: 'added', text: b[j++]! });
  return out;
}

/** The diff of a held tool's approved and current definition. */
export function definitionDiff(def: HeldDefinition): DiffLine[] {
  return diffLines(canonicalJson(def.approved), canonicalJson(def.current));
}

/** The `change` of a tool held on its first listing for its findings. */
export const FIRST_LISTING = 'first listing';

/** Why `tool` is held or flagged, in words. */
export function heldReason(tool: HeldTool): string {
  const findings = tool.findings ?? [];
  const found = findings.length === 1 ? '1 finding' : `${findings.length} findings`;
  if (tool.change === FIRST_LISTING) return `first listing, ${found} of text aimed at the model`;
  const changed = `${tool.change} changed since it was approved`;
  return findings.length > 0 ? `${changed}, ${found}` : changed;
}

/** A finding's rule as words: `credential-file` → `credential file`. */
export function ruleLabel(finding: ToolFinding): string {
  return finding.rule.replace(/-/g, ' ');
}

/** Each server's pins from the snapshot, with the definitions loaded so far. */
export function pinsOf(
  snapshot: HubSnapshot,
  defs: ReadonlyMap<string, HeldDefinition[]>,
  errors: ReadonlyMap<string, string> = new Map(),
): Map<string, ServerPins> {
  const out = new Map<string, ServerPins>();
  for (const s of snapshot.servers) {
    const held = s.heldTools ?? [];
    const changed = s.changedTools ?? [];
    const newTools = s.newTools ?? [];
    if (held.length + changed.length + newTools.length === 0) continue;
    out.set(s.id, { held, changed, newTools, defs: defs.get(s.id) ?? null, defsError: errors.get(s.id) ?? null });
  }
  return out;
}

/** A key that changes whenever a server's held or changed tools do (to reload their definitions). */
export function pinsKey(p: ServerPins): string {
  return [...p.held, ...p.changed].map((t) => `${t.name}@${t.since}:${t.change}:${t.hash}`).join('|');
}

/** The name of a tool to approve. */
export function approvalName(t: ApproveTool): string {
  return typeof t === 'string' ? t : t.name;
}

/**
 * What the Approve button of `tool` sends: its name with the hash of the
 * definition shown (the loaded diff's, else the snapshot's).
 */
export function reviewed(tool: HeldTool, def: HeldDefinition | null): ApproveTool {
  const hash = def?.hash || tool.hash;
  return hash ? { name: tool.name, hash } : tool.name;
}

const enc = encodeURIComponent;

export const heldApi = {
  held: (id: string) => call<HeldResponse>('GET', `servers/${enc(id)}/held`, `read the changed tools of ${id}`),
  approve: (id: string, tools: ApproveTool[] | null) =>
    call<ApproveResponse>(
      'POST',
      `servers/${enc(id)}/approve`,
      `approve ${tools ? tools.map(approvalName).join(', ') : 'the tools'} of ${id}`,
      tools ? { tools } : {},
    ),
};

function diffView(def: HeldDefinition): TemplateResult {
  const sign = { same: ' ', removed: '−', added: '+' } as const;
  return html`<pre class="diff" data-testid="held-diff" aria-label=${`Approved and current definition of ${def.name}`}>${definitionDiff(def).map(
    (line) => html`<span class="diff-${line.kind}">${sign[line.kind]} ${line.text}\n</span>`,
  )}</pre>`;
}

function findingsView(tool: HeldTool): TemplateResult | typeof nothing {
  const findings = tool.findings ?? [];
  if (findings.length === 0) return nothing;
  return html`<ul class="findings" data-testid="findings" aria-label=${`Findings in ${tool.name}`}>
    ${findings.map(
      (f) => html`<li class="finding" data-rule=${f.rule}>
        <span class="finding-rule">${ruleLabel(f)}</span> <mark class="finding-excerpt">${f.excerpt}</mark>
      </li>`,
    )}
  </ul>`;
}

/** The definition as listed, for a tool that was never approved. */
function currentView(def: HeldDefinition): TemplateResult {
  return html`<pre class="diff" data-testid="held-definition" aria-label=${`Listed definition of ${def.name}`}>${canonicalJson(def.current)}</pre>`;
}

function toolBlock(
  id: string,
  tool: HeldTool,
  held: boolean,
  p: ServerPins,
  busy: ReadonlySet<string>,
  approve: (id: string, tools: ApproveTool[] | null) => void,
): TemplateResult {
  const def = p.defs?.find((d) => d.name === tool.name) ?? null;
  const key = `approve:${id}:${tool.name}`;
  return html`<details class="held-tool" data-tool=${tool.name} ?open=${held}>
    <summary>
      <b>${tool.name}</b>: ${heldReason(tool)}
      ${held
        ? html`<span class="badge held-badge">Held</span>`
        : html`<span class="badge">${tool.change === FIRST_LISTING ? 'Flagged' : 'Changed'}</span>`}
      <time class="muted" datetime=${tool.since}>${tool.since}</time>
    </summary>
    ${findingsView(tool)}
    ${def
      ? def.approved === null
        ? currentView(def)
        : diffView(def)
      : p.defsError
        ? html`<p class="error-text">${p.defsError}</p>`
        : html`<p class="muted">Loading the definitions…</p>`}
    <button
      type="button"
      class="small primary"
      data-action="approve"
      aria-label=${`Approve ${tool.name} of ${id}`}
      ?disabled=${busy.has(key)}
      @click=${() => approve(id, [reviewed(tool, def)])}
    >
      ${busy.has(key) ? 'Approving…' : 'Approve'}
    </button>
  </details>`;
}

/** The pins part of a server's detail row; nothing when there is none. */
export function heldBlock(
  id: string,
  p: ServerPins | undefined,
  busy: ReadonlySet<string>,
  approve: (id: string, tools: ApproveTool[] | null) => void,
): TemplateResult | typeof nothing {
  if (!p) return nothing;
  const count = p.held.length;
  return html`<div class="held" data-testid="held">
    ${count > 0
      ? html`<div class="held-summary">
          ${count === 1 ? '1 tool is' : `${count} tools are`} held: ${count === 1 ? 'its' : 'their'} definition changed since
          you approved it, or scanning found text aimed at the model. Clients do not see ${count === 1 ? 'it' : 'them'} until
          you approve.
        </div>`
      : nothing}
    ${p.held.map((t) => toolBlock(id, t, true, p, busy, approve))}
    ${p.changed.map((t) => toolBlock(id, t, false, p, busy, approve))}
    ${p.newTools.length > 0
      ? html`<div class="new-tools" data-testid="new-tools">
          New tools: ${p.newTools.join(', ')}
          <button
            type="button"
            class="small"
            aria-label=${`Approve the new tools of ${id}`}
            ?disabled=${busy.has(`approve:${id}:${p.newTools.join(',')}`)}
            @click=${() => approve(id, p.newTools)}
          >
            Mark as seen
          </button>
        </div>`
      : nothing}
  </div>`;
}
