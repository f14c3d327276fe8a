import { displayJson, displayText, segmentsToText } from '@countersign/core/display';
import { createRequire } from 'node:module';
import { z } from 'zod';

// `diff` (19 modules) is loaded the first time a changed definition is shown, not whenever
// the approvals commands load: `approvals list` and `approve` never draw a diff.
const require = createRequire(import.meta.url);
let diffLibrary: typeof import('diff') | undefined;
function twoFilesPatch(beforeName: string, afterName: string, before: string, after: string): string {
  diffLibrary ??= require('diff') as typeof import('diff');
  return diffLibrary.createTwoFilesPatch(beforeName, afterName, before, after, undefined, undefined, { context: 3 });
}

/** The part of the API's definition review the terminal shows: the trusted and the new definition, and who registered it. */
export const ReviewAnswer = z.object({
  toolName: z.string(),
  previousDigest: z.string().optional(),
  previous: z.unknown().optional(),
  digest: z.string(),
  next: z.unknown().optional(),
  registeredBy: z.string().optional(),
});
export type ReviewAnswer = z.infer<typeof ReviewAnswer>;

const Definition = z.object({ description: z.string().optional(), inputSchema: z.unknown().optional() });

/**
 * `approvals show` of a definition review: "new tool" or what changed, the description
 * and the input schema as unified diffs (trusted → new), and the agent that registered
 * it. A description is text the model reads as instructions, so every line goes through
 * the same escapes as a call's arguments: a hidden sentence shows as escapes, never raw.
 */
export function reviewLines(review: ReviewAnswer): string[] {
  const first = review.previous === undefined && review.previousDigest === undefined;
  const lines = [
    `${first ? 'new tool' : 'tool definition changed'}: ${displayText(review.toolName)}`,
    `registered by ${review.registeredBy === undefined ? "the tool's server or catalogue (no agent registered it)" : `agent ${displayText(review.registeredBy)}`}`,
    `trusted    ${review.previousDigest === undefined ? 'none' : displayText(review.previousDigest)}`,
    `new        ${displayText(review.digest)}`,
  ];
  const next = Definition.safeParse(review.next ?? {});
  if (review.next === undefined || !next.success) return [...lines, 'the new definition is not recorded in the store: do not approve what you cannot read'];
  const previous = Definition.safeParse(review.previous ?? {});
  const before = previous.success ? previous.data : {};
  if (first) {
    lines.push('description', ...indent(descriptionText(next.data.description)), 'input schema', ...indent(schemaText(next.data.inputSchema)));
    return lines;
  }
  lines.push('description', ...indent(...unifiedDiff('description', descriptionText(before.description), descriptionText(next.data.description))));
  lines.push('input schema', ...indent(...unifiedDiff('input schema', schemaText(before.inputSchema), schemaText(next.data.inputSchema))));
  return lines;
}

/** Escaped line by line, so the diff splits lines of text that is already safe to print. */
function descriptionText(description: string | undefined): string {
  return (description ?? '').split('\n').map(displayText).join('\n');
}

function schemaText(schema: unknown): string {
  return schema === undefined ? '(none)' : segmentsToText(displayJson(schema, 'pretty'));
}

/**
 * `- old` / `+ new` lines with context, or "unchanged". Both texts come in escaped: a diff
 * only cuts them into lines and marks them, so nothing raw reaches the terminal.
 */
function unifiedDiff(name: string, before: string, after: string): string[] {
  if (before === after) return ['unchanged'];
  const patch = twoFilesPatch(`${name} (trusted)`, `${name} (new)`, `${before}\n`, `${after}\n`);
  // The first line is diff's own `Index`/`===` banner; from `---` on it is the unified diff.
  const body = patch.split('\n').filter((line) => line !== '');
  const from = body.findIndex((line) => line.startsWith('---'));
  return body.slice(from === -1 ? 0 : from);
}

function indent(...texts: string[]): string[] {
  return texts.flatMap((text) => text.split('\n')).map((line) => `  ${line}`);
}
