import type { MatchTool } from '../matcher/types.ts';

/** Runs of identifier characters: one linear pass, no backtracking on long input. */
const TOKEN = /[\p{L}\p{N}_-]+/gu;
/** Written as an identifier: snake_case, kebab-case or camelCase, not a plain word ("search"). */
const LOOKS_LIKE_IDENTIFIER = /[\p{L}\p{N}][_-][\p{L}\p{N}]|\p{Ll}\p{Lu}/u;

/**
 * Removes the identifiers of catalogue tools from a task ("… and then export_table"): naming a
 * tool says which tool someone wants called, not what they need, and the name is exactly what
 * an injected instruction or a steering user would add. The tool must then fit on the rest of
 * the task. Words of the name written as words ("export the table") are kept.
 */
export function withoutToolMentions(task: string, catalogue: readonly MatchTool[]): { task: string; mentioned: string[] } {
  const names = new Set(catalogue.map((t) => t.name.toLowerCase()));
  const mentioned: string[] = [];
  const rest = task.replace(TOKEN, (token) => {
    if (!LOOKS_LIKE_IDENTIFIER.test(token) || !names.has(token.toLowerCase())) return token;
    mentioned.push(token);
    return ' ';
  });
  return { task: rest, mentioned };
}
