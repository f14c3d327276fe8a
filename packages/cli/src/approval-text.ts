import { displayJson, displayText, segmentsToText } from '@countersign/core/display';
import { z } from 'zod';
import { ReviewAnswer, reviewLines } from './definition-review-text.ts';
import { describeTime } from './format-time.ts';

/*
 * An approval request as the terminal shows it, with the page's display-safety rules:
 * every string from the call goes through core/display (bidi controls, invisible and
 * control characters, confusables become visible escapes such as \u202E), so nothing
 * the agent sent can rewrite the terminal or pass for something else, and the
 * service's warnings (hidden characters, values outside the pinned schema) come first.
 */

const Finding = z.object({ pointer: z.string(), where: z.enum(['key', 'value']).optional(), kind: z.string(), detail: z.string() });

/** The part of the approver API's `ApprovalView` the CLI reads; anything else in it is ignored. */
export const ApprovalAnswer = z.object({
  requestId: z.string(),
  status: z.string(),
  expiresAt: z.number(),
  approvals: z.number(),
  requiredApprovals: z.number(),
  ruleId: z.string().optional(),
  call: z.object({
    proposalId: z.string(),
    toolName: z.string(),
    definitionDigest: z.string().optional(),
    canonicalArguments: z.string(),
    argsDigest: z.string(),
    principal: z.string(),
    agent: z.string(),
    runId: z.string(),
    sessionId: z.string(),
    callId: z.string(),
    parentProposalId: z.string().optional(),
  }),
  decisions: z.array(z.object({ approver: z.string(), decision: z.string(), reason: z.string().optional(), at: z.number(), editedProposalId: z.string().optional() })),
  edited: z.object({ requestId: z.string(), callId: z.string() }).optional(),
  /** A definition review: the trusted and the new definition instead of a call to run. */
  review: ReviewAnswer.optional(),
  display: z
    .object({
      findings: z.array(Finding),
      truncated: z.boolean(),
      inputSchema: z.object({ problems: z.array(z.object({ pointer: z.string(), message: z.string() })) }),
    })
    .optional(),
});
export type ApprovalAnswer = z.infer<typeof ApprovalAnswer>;

const t = displayText;

/** The call's arguments, parsed from the canonical text, as escaped JSON; the raw text if it does not parse. */
function argumentsText(canonical: string, format: 'pretty' | 'canonical'): string {
  try {
    return segmentsToText(displayJson(JSON.parse(canonical) as unknown, format));
  } catch {
    return t(canonical);
  }
}

/** The warnings a person must read before deciding, one per line (empty when there is nothing to warn about). */
export function warningLines(view: ApprovalAnswer): string[] {
  const lines: string[] = [];
  const display = view.display;
  if (display === undefined) return ['warning: the service sent no display check for this call; read every value character by character'];
  if (display.findings.length > 0) {
    lines.push('warning: this call contains text that does not read as what it is (shown as escapes like \\u202E):');
    for (const f of display.findings) lines.push(`  ${t(f.pointer === '' ? '/' : f.pointer)}${f.where === 'key' ? ' (the key)' : ''}: ${t(f.kind)}, ${t(f.detail)}`);
    if (display.truncated) lines.push('  … and more not listed');
  }
  if (display.inputSchema.problems.length > 0) {
    lines.push("warning: the arguments do not match the tool's pinned input schema:");
    for (const p of display.inputSchema.problems) lines.push(`  ${t(p.pointer)}: ${t(p.message)}`);
  }
  return lines;
}

/** `approvals show`: warnings first, then the exact call, then who asked and what was decided. */
export function detailText(view: ApprovalAnswer, now: number): string[] {
  const { call } = view;
  const lines = [...warningLines(view)];
  const requestLine = `request    ${t(view.requestId)}  ${t(view.status)}  ${view.approvals} of ${view.requiredApprovals} approval${view.requiredApprovals === 1 ? '' : 's'}`;
  // A definition review runs no call: what to read is the definition and what changed in it,
  // not the review's internal call record.
  if (view.review !== undefined) {
    lines.push(requestLine, ...reviewLines(view.review));
    return [...lines, ...closingLines(view, now)];
  }
  lines.push(
    requestLine,
    `tool       ${t(call.toolName)}`,
    'arguments',
    ...argumentsText(call.canonicalArguments, 'pretty')
      .split('\n')
      .map((line) => `  ${line}`),
    `canonical  ${argumentsText(call.canonicalArguments, 'canonical')}`,
    `args sha256 ${t(call.argsDigest)}`,
    `definition ${call.definitionDigest === undefined ? 'none (tool has no pinned definition)' : t(call.definitionDigest)}`,
    `principal  ${t(call.principal)}`,
    `agent      ${t(call.agent)}`,
    `run        ${t(call.runId)}  session ${t(call.sessionId)}  call ${t(call.callId)}`,
    `proposal   ${t(call.proposalId)}`,
  );
  if (call.parentProposalId !== undefined) lines.push(`edit of    proposal ${t(call.parentProposalId)}`);
  if (view.edited !== undefined) lines.push(`edited     replaced by request ${t(view.edited.requestId)} (call ${t(view.edited.callId)}); the original will not run`);
  return [...lines, ...closingLines(view, now)];
}

/** The rule, the deadline and the decisions so far. */
function closingLines(view: ApprovalAnswer, now: number): string[] {
  const lines: string[] = [];
  if (view.ruleId !== undefined) lines.push(`rule       ${t(view.ruleId)}`);
  // A countdown only while the deadline can still matter: a decided request's says nothing.
  lines.push(isOpen(view.status) ? `expires    ${describeTime(view.expiresAt, now)}` : `deadline   ${new Date(view.expiresAt).toISOString()} (closed: ${t(view.status)})`);
  for (const d of view.decisions) {
    const what = d.editedProposalId !== undefined ? 'replaced it with an edited call' : d.decision === 'approve' ? 'approved' : 'denied';
    lines.push(`decision   ${t(d.approver)} ${what} at ${new Date(d.at).toISOString()}${d.reason === undefined ? '' : ` — "${t(d.reason)}"`}`);
  }
  return lines;
}

/** Pending or approved-not-run: the request's expiry is still ahead of it. */
function isOpen(status: string): boolean {
  return status === 'pending' || status === 'approved';
}

/** `approve` echoes the call it approved, as the service holds it. */
export function approvedCallLines(view: ApprovalAnswer): string[] {
  return [
    ...labelled('request', t(view.requestId)),
    ...labelled('tool', t(view.call.toolName)),
    ...labelled('arguments', argumentsText(view.call.canonicalArguments, 'canonical')),
    ...labelled('sha256', t(view.call.argsDigest)),
  ];
}

/** The echo's label column: two spaces, the label padded to 11. */
const LABEL = 13;

/**
 * `  label      value`, the value folded into 80-column lines under itself: the echo shows
 * the whole value (it is the exact call), so a long one continues rather than being cut.
 * Counts code points: escaped text is ASCII, so only a raw wide character (CJK) can overrun.
 */
function labelled(label: string, value: string): string[] {
  const chars = Array.from(value);
  const room = WIDTH - LABEL;
  const lines: string[] = [];
  for (let at = 0; at === 0 || at < chars.length; at += room) {
    lines.push(`${at === 0 ? `  ${label}`.padEnd(LABEL) : ' '.repeat(LABEL)}${chars.slice(at, at + room).join('')}`);
  }
  return lines;
}

/** `list` fits 80 columns: fixed widths, the arguments get what is left (at least 20). */
const WIDTH = 80;
const TOOL = 12;
const PRINCIPAL = 10;
const EXPIRES = 8;

export function listHeader(idWidth: number): string {
  return ['  ', 'ID'.padEnd(idWidth), 'TOOL'.padEnd(TOOL), 'PRINCIPAL'.padEnd(PRINCIPAL), 'APPR', 'EXPIRES'.padEnd(EXPIRES), 'ARGUMENTS'].join(' ').trimEnd();
}

/** `approvals list`: one aligned line per request; `!` marks a call with warnings. */
export function listLine(view: ApprovalAnswer, shownId: string, idWidth: number, now: number): string {
  const flagged = view.display === undefined || view.display.findings.length > 0 || view.display.inputSchema.problems.length > 0;
  const fixed = [
    flagged ? '! ' : '  ',
    t(shownId).padEnd(idWidth),
    clip(t(view.call.toolName), TOOL).padEnd(TOOL),
    clip(t(view.call.principal), PRINCIPAL).padEnd(PRINCIPAL),
    `${view.approvals}/${view.requiredApprovals}`.padEnd(4),
    clip(isOpen(view.status) ? relative(view.expiresAt, now) : t(view.status), EXPIRES).padEnd(EXPIRES),
  ].join(' ');
  return `${fixed} ${clip(argumentsText(view.call.canonicalArguments, 'canonical'), Math.max(20, WIDTH - fixed.length - 1))}`;
}

function clip(text: string, width: number): string {
  const points = Array.from(text);
  return points.length <= width ? text : `${points.slice(0, width - 1).join('')}…`;
}

/** The list's expiry column, relative; `show` has the absolute time. */
function relative(ms: number, now: number): string {
  const full = describeTime(ms, now);
  // One unit is enough in a column: `in 9m`, `2h ago`, `180d ago`.
  return full.slice(full.indexOf('(') + 1, -1).replace(/^(in )?(\d+[smhd])( \d+[smhd])?/, '$1$2');
}
