import { compileToolPattern } from '@countersign/core/policy';

/**
 * One known-good (task, tool) pair an operator vouches for. Both are GLOBS, not regular
 * expressions: `*` matches any run of characters, every other character is literal, and
 * the pattern must cover the whole text (anchored at both ends). The task is compared
 * case-insensitively with runs of whitespace collapsed to one space; the tool name
 * exactly. Globs are matched by plain string search, so no pattern can backtrack.
 */
export interface AllowlistEntry {
  task: string;
  tool: string;
}

export interface Allowlist {
  /** The first entry vouching for this pair, or undefined. */
  find(task: string, toolName: string): AllowlistEntry | undefined;
  readonly size: number;
}

/** Most entries and longest pattern accepted: a hot-path list, not a database. */
const MAX_ENTRIES = 10_000;
const MAX_PATTERN = 1000;

export class AllowlistError extends Error {
  readonly code = 'invalid_allowlist' as const;
}

/**
 * Compiles the operator's allowlist; a malformed entry is an `AllowlistError`. An entry
 * whose task pattern is only `*` would vouch for the tool under every task (the same as
 * no intent check for it): refused, say so in policy instead.
 */
export function compileAllowlist(entries: readonly AllowlistEntry[]): Allowlist {
  if (!Array.isArray(entries) || entries.length > MAX_ENTRIES) throw new AllowlistError(`allowlist must be a list of at most ${MAX_ENTRIES} entries`);
  const compiled = entries.map((entry, i) => {
    const where = `allowlist entry ${i}`;
    if (typeof entry?.task !== 'string' || typeof entry.tool !== 'string') throw new AllowlistError(`${where}: task and tool must be strings`);
    const task = normalizeTask(entry.task);
    if (task === '' || entry.tool === '' || task.length > MAX_PATTERN || entry.tool.length > MAX_PATTERN) {
      throw new AllowlistError(`${where}: task and tool must be non-empty and at most ${MAX_PATTERN} characters`);
    }
    if (task.replaceAll('*', '').trim() === '') throw new AllowlistError(`${where}: a task pattern must contain some literal text`);
    return { entry, task: compileToolPattern(task), tool: compileToolPattern(entry.tool) };
  });
  return {
    size: compiled.length,
    find(task, toolName) {
      const normalized = normalizeTask(task);
      return compiled.find((c) => c.tool(toolName) && c.task(normalized))?.entry;
    },
  };
}

/** Lower-cased, whitespace runs collapsed, trimmed: "Read  CI logs" and "read ci logs" are one task. */
export function normalizeTask(task: string): string {
  return task.toLowerCase().replace(/\s+/gu, ' ').trim();
}
