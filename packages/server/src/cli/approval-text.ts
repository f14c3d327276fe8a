import { displayJson, displayText, segmentsToText } from '@countersign/core/display';
import { z } from 'zod';
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
  lines.push(
    `request    ${t(view.requestId)}  ${t(view.status)}  ${view.approvals} of ${view.requiredApprovals} approval${view.requiredApprovals === 1 ? '' : 's'}`,
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
  if (view.ruleId !== undefined) lines.push(`rule       ${t(view.ruleId)}`);
  lines.push(`expires    ${describeTime(view.expiresAt, now)}`);
  if (call.parentProposalId !== undefined) lines.push(`edit of    proposal ${t(call.parentProposalId)}`);
  if (view.edited !== undefined) lines.push(`edited     replaced by request ${t(view.edited.requestId)} (call ${t(view.edited.callId)}); the original will not run`);
  for (const d of view.decisions) {
    const what = d.editedProposalId !== undefined ? 'replaced it with an edited call' : d.decision === 'approve' ? 'approved' : 'denied';
    lines.push(`decision   ${t(d.approver)} ${what} at ${new Date(d.at).toISOString()}${d.reason === undefined ? '' : ` — "${t(d.reason)}"`}`);
  }
  return lines;
}

const SUMMARY_WIDTH = 60;

/** `approvals list`: one line per request; `!` marks a call with warnings. */
export function listLine(view: ApprovalAnswer, now: number): string {
  const flagged = view.display === undefined || view.display.findings.length > 0 || view.display.inputSchema.problems.length > 0;
  const args = argumentsText(view.call.canonicalArguments, 'canonical');
  const summary = args.length > SUMMARY_WIDTH ? `${args.slice(0, SUMMARY_WIDTH - 1)}…` : args;
  return [
    flagged ? '!' : ' ',
    t(view.requestId),
    t(view.status),
    t(view.call.toolName),
    t(view.call.principal),
    `${view.approvals}/${view.requiredApprovals}`,
    `expires ${describeTime(view.expiresAt, now)}`,
    summary,
  ].join('  ');
}
