import type { ApprovalAnswer } from './approval-text.ts';
import { approverRequest } from './approver-http.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext } from './command-context.ts';

/** A prefix shorter than this is never expanded: two keystrokes must not pick a request. */
export const MIN_PREFIX = 4;
/** `list` shows ids at least this long, longer where two would share it. */
const SHOWN_PREFIX = 8;

/**
 * The shortest prefix of each id (at least `SHOWN_PREFIX` characters) that no other id on
 * the list shares, so what `list` shows can be typed back to `show`, `approve` or `deny`.
 */
export function uniquePrefixes(ids: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const id of ids) {
    let length = Math.min(SHOWN_PREFIX, id.length);
    while (length < id.length && ids.some((other) => other !== id && other.startsWith(id.slice(0, length)))) length++;
    out.set(id, id.slice(0, length));
  }
  return out;
}

/**
 * The full request id for what the approver typed: the id itself when the service knows
 * it, else the one pending or approved request of theirs it is a prefix of. Several
 * matches is a usage error naming them (nothing is decided on a guess); none returns the
 * text unchanged, so the command's own call answers not_found.
 */
export async function resolveRequestId(ctx: CommandContext, url: string, typed: string): Promise<string> {
  if (typed.length < MIN_PREFIX) return typed;
  const exact = await approverRequest(ctx, url, 'GET', `/api/v1/approvals/${encodeURIComponent(typed)}`);
  if (exact.status !== 404) return typed;
  const matches = new Set<string>();
  for (const status of ['pending', 'approved']) {
    const answer = await approverRequest(ctx, url, 'GET', `/api/v1/approvals?status=${status}&limit=1000`);
    const approvals = (answer.body as { approvals?: Array<Pick<ApprovalAnswer, 'requestId'>> } | null)?.approvals;
    if (answer.status !== 200 || !Array.isArray(approvals)) continue;
    for (const a of approvals) if (typeof a.requestId === 'string' && a.requestId.startsWith(typed)) matches.add(a.requestId);
  }
  if (matches.size > 1) throw new CliError('usage', `${typed} is the start of ${matches.size} requests (${[...matches].slice(0, 5).join(', ')}): type more of the id`);
  return matches.size === 1 ? [...matches][0]! : typed;
}
