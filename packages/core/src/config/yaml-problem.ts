import type { LineCounter, YAMLError } from 'yaml';

/**
 * The errors as `describeYamlError` says them, each slip once: a line indented too deep
 * raises BLOCK_AS_IMPLICIT_KEY and MULTILINE_IMPLICIT_KEY at the same place; the first says it.
 */
export function describeYamlErrors(errors: readonly YAMLError[], lines: LineCounter): string[] {
  const nested = new Set(errors.filter((e) => e.code === 'BLOCK_AS_IMPLICIT_KEY').map((e) => e.pos[0]));
  const kept = errors.filter((e) => !(e.code === 'MULTILINE_IMPLICIT_KEY' && nested.has(e.pos[0])));
  return [...new Set(kept.map((e) => describeYamlError(e, lines)))];
}

/**
 * One YAML error as `line N, column C: what is wrong`, at the line the author has to fix.
 * The `yaml` package marks some indentation slips where the parser first went wrong, one
 * line early: a line indented deeper than the key above it is reported at the previous
 * line's value (BLOCK_AS_IMPLICIT_KEY, MULTILINE_IMPLICIT_KEY), so those name the next line.
 */
export function describeYamlError(error: YAMLError, lines: LineCounter): string {
  const start = lines.linePos(error.pos[0]);
  const end = lines.linePos(error.pos[1]);
  switch (error.code) {
    case 'BLOCK_AS_IMPLICIT_KEY':
      return `line ${start.line + 1}: indented deeper than line ${start.line} above it (a value cannot start a nested mapping; align it with the key above, or put it under a key of its own)`;
    case 'MULTILINE_IMPLICIT_KEY':
      return end.line > start.line
        ? `line ${end.line}: line ${start.line} runs on into it (check the indentation of line ${end.line}, or a missing ":" on line ${start.line})`
        : `line ${start.line}, column ${start.col}: a key must fit on one line`;
    case 'MISSING_CHAR':
      if (/without - indicator/.test(error.message)) {
        return `line ${start.line}, column ${start.col}: indented less than the list item above but not a new item (align it with the item's keys, or start it with "- ")`;
      }
      return `line ${start.line}, column ${start.col}: ${firstLine(error.message)}`;
    case 'TAB_AS_INDENT':
      return `line ${start.line}, column ${start.col}: a tab used for indentation (indent with spaces)`;
    default:
      return `line ${start.line}, column ${start.col}: ${firstLine(error.message)}`;
  }
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0] ?? message;
}
