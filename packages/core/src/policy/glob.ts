/** Tests whether a tool name matches one `tool` pattern of a rule. */
export type ToolMatcher = (toolName: string) => boolean;

/**
 * Compiles a tool pattern. `*` matches any run of characters (including none);
 * every other character is literal and compared exactly, case-sensitively, and the
 * pattern must cover the whole name. Matching is done by plain string search, not
 * by building a regular expression, so `.`, `+`, `(` and friends can never act as
 * metacharacters and a pattern cannot cause catastrophic backtracking.
 */
export function compileToolPattern(pattern: string): ToolMatcher {
  if (!pattern.includes('*')) return (toolName) => toolName === pattern;

  const parts = pattern.split('*');
  const head = parts[0] ?? '';
  const tail = parts[parts.length - 1] ?? '';
  const middle = parts.slice(1, -1).filter((part) => part !== '');

  return (toolName) => {
    if (toolName.length < head.length + tail.length) return false;
    if (!toolName.startsWith(head) || !toolName.endsWith(tail)) return false;
    // Leftmost placement of each literal run is optimal when the only wildcard is `*`.
    let from = head.length;
    const end = toolName.length - tail.length;
    for (const part of middle) {
      const at = toolName.indexOf(part, from);
      if (at === -1 || at + part.length > end) return false;
      from = at + part.length;
    }
    return true;
  };
}
