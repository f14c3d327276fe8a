import { readFile } from 'node:fs/promises';
import { parseToolDefinition, type PinFileEntry } from '@countersign/core/catalog';
import { parseConfigText } from '@countersign/core/config';
import { definitionDigest, type PinDeps, pinTools, type ToolDefinition } from '@countersign/core/gate';
import { definitionOf } from './upstream-tools.ts';
import { toolNaming, upstreamNameProblem } from './names.ts';
import { connectUpstream, type UpstreamConfig } from './upstream.ts';

/**
 * The operator's pins for a gateway, like a package lock: each served tool name → the
 * SHA-256 of its canonical definition, with the definition beside it for review (a diff
 * of the lock in a pull request shows exactly what an upstream changed).
 */
export interface GatewayLock {
  lockfileVersion: 1;
  tools: Record<string, { digest: string; definition: ToolDefinition }>;
}

export const LOCKFILE_VERSION = 1;

export type LockResult = { ok: true; entries: PinFileEntry[] } | { ok: false; reason: 'invalid_lock'; message: string };

/**
 * Starts (or connects to) every upstream, lists its tools and returns the lock of what it
 * serves now, under the names the gateway serves them (namespaced as the gateway would).
 */
export async function lockUpstreams(upstreams: readonly UpstreamConfig[], namespaced?: boolean): Promise<GatewayLock> {
  const names = upstreams.map((u) => u.name);
  for (const name of names) {
    const problem = upstreamNameProblem(name);
    if (problem !== undefined) throw new Error(problem);
  }
  const naming = toolNaming(names, namespaced ?? names.length > 1);
  const tools: GatewayLock['tools'] = {};
  for (const config of upstreams) {
    const upstream = await connectUpstream(config, () => undefined);
    try {
      for (const tool of await upstream.listTools()) {
        const definition = definitionOf(naming.served(upstream.name, tool.name), tool);
        if (tools[definition.name] !== undefined) throw new Error(`${upstream.name}: lists ${tool.name} twice`);
        tools[definition.name] = { digest: definitionDigest(definition), definition };
      }
    } finally {
      await upstream.close().catch(() => undefined);
    }
  }
  return { lockfileVersion: LOCKFILE_VERSION, tools: sortedByName(tools) };
}

/** The lock as written to disk: JSON, tools in name order, two-space indent, final newline (stable diffs). */
export function lockText(lock: GatewayLock): string {
  return `${JSON.stringify({ lockfileVersion: lock.lockfileVersion, tools: sortedByName(lock.tools) }, null, 2)}\n`;
}

/**
 * Reads a lock strictly. Each entry's definition must hash to its digest: a lock edited by
 * hand (a description changed, the digest kept) is refused, not half-believed.
 */
export function parseLock(text: string): LockResult {
  const parsed = parseConfigText(text, 'json');
  if (!parsed.ok) return invalid(parsed.problems.join('; '));
  const root = parsed.value;
  if (!isRecord(root) || Object.keys(root).some((k) => k !== 'lockfileVersion' && k !== 'tools')) return invalid('a lock is an object with "lockfileVersion" and "tools"');
  if (root.lockfileVersion !== LOCKFILE_VERSION) return invalid(`lockfileVersion must be ${LOCKFILE_VERSION}`);
  if (!isRecord(root.tools)) return invalid('"tools" must map tool names to { digest, definition }');
  const entries: PinFileEntry[] = [];
  for (const [toolName, value] of Object.entries(root.tools)) {
    const at = `tools[${JSON.stringify(toolName)}]`;
    if (!isRecord(value) || Object.keys(value).some((k) => k !== 'digest' && k !== 'definition')) return invalid(`${at}: must be { digest, definition }`);
    const definition = parseToolDefinition(value.definition);
    if (!definition.ok) return invalid(`${at}.definition: ${definition.message}`);
    if (definition.definition.name !== toolName) return invalid(`${at}: the definition's name is ${JSON.stringify(definition.definition.name)}`);
    if (value.digest !== definition.digest) return invalid(`${at}: digest ${JSON.stringify(value.digest)} is not the SHA-256 of its definition (${definition.digest}); run \`countersign mcp pin\` again`);
    entries.push({ toolName, digest: definition.digest, definitionText: definition.text });
  }
  if (entries.length === 0) return invalid('the lock lists no tools');
  return { ok: true, entries };
}

export async function readLockFile(path: string): Promise<LockResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return invalid(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = parseLock(text);
  return parsed.ok ? parsed : invalid(`${path}: ${parsed.message}`);
}

/**
 * Pins the store from the lock (operator pins, audited `definition_pinned` via
 * `pin_file`) before the gateway serves. A tool whose pin already trusts the lock's digest
 * is left as it is (a restart does not reopen, or settle, a review in progress). An
 * upstream definition that differs from the lock then takes the rug-pull path: hidden,
 * refused, audited, and a review opened. Tools the lock does not list are not trusted
 * on first use: each waits for review.
 */
export async function applyLock(deps: PinDeps, entries: readonly PinFileEntry[], actor = 'lock'): Promise<{ ok: true; pinned: string[] } | { ok: false; message: string }> {
  const moved: PinFileEntry[] = [];
  try {
    for (const entry of entries) {
      const pin = await deps.definitions.getPin(entry.toolName);
      if (pin?.trustedDigest !== entry.digest) moved.push(entry);
    }
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  if (moved.length === 0) return { ok: true, pinned: [] };
  const outcome = await pinTools(deps, moved, actor);
  return outcome.ok ? { ok: true, pinned: outcome.pins.map((p) => p.toolName) } : { ok: false, message: outcome.message };
}

function sortedByName<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): LockResult & { ok: false } {
  return { ok: false, reason: 'invalid_lock', message };
}
