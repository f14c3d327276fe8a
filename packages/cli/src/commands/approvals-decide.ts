import type { Command } from 'commander';
import { z } from 'zod';
import { ApprovalAnswer, approvedCallLines, warningLines } from '../approval-text.ts';
import { APPROVER_TOKEN_ENV, approverRequest, auditFlag, refusalOf, SERVICE_URL_ENV, serviceUrl } from '../approver-http.ts';
import { resolveRequestId } from '../request-id-prefix.ts';
import { EXIT_OK, EXIT_REJECTED } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { displayText } from '@countersign/core/display';
import type { ApproverFlags } from './approvals.ts';
import { parsed } from './approvals-read.ts';

interface DecideFlags extends ApproverFlags {
  reason?: string;
  edit?: string;
}

const DecisionAnswer = z.object({ request: ApprovalAnswer.nullable(), editedRequest: ApprovalAnswer.optional() });

const EXIT_HELP = (what: string) => `
The approver's API token is read from ${APPROVER_TOKEN_ENV}, the service's URL from --url or ${SERVICE_URL_ENV}. Read the call first: countersign approvals show <requestId>.
Exit status: 0 ${what}, 1 refused (not found, already decided, expired, invalid or policy-denied edit), 2 usage, configuration or network error.`;

/** `approvals approve` (optionally `--edit <json>`) and `approvals deny`: the same decision the page records, over the HTTP API. */
export function registerApproverDecisionCommands(approvals: Command, ctx: CommandContext): void {
  approvals
    .command('approve')
    .description('Approve the recorded call exactly as the service holds it, or with --edit approve an edited call in its place.')
    .argument('<requestId>', 'the approval request id, or the start of it as list shows it')
    .option('--url <url>', `base URL of the Countersign service, e.g. http://127.0.0.1:8787 (default: $${SERVICE_URL_ENV})`)
    .option('--reason <text>', 'why (kept with the decision)')
    .option('--edit <json>', "edited arguments (JSON text, parsed strictly by the service): a new call that must fit the tool's schema and gets its own policy verdict; the original never runs")
    .option('--json', 'machine-readable output')
    .addHelpText('after', EXIT_HELP('recorded'))
    .action(async (requestId: string, flags: DecideFlags) => {
      ctx.setExitCode(await decide(ctx, requestId, 'approve', flags));
    });
  approvals
    .command('deny')
    .description('Deny the call: it never runs.')
    .argument('<requestId>', 'the approval request id, or the start of it as list shows it')
    .option('--url <url>', `base URL of the Countersign service, e.g. http://127.0.0.1:8787 (default: $${SERVICE_URL_ENV})`)
    .option('--reason <text>', 'why (kept with the decision)')
    .option('--json', 'machine-readable output')
    .addHelpText('after', EXIT_HELP('denied'))
    .action(async (requestId: string, flags: DecideFlags) => {
      ctx.setExitCode(await decide(ctx, requestId, 'deny', flags));
    });
}

export async function decide(ctx: CommandContext, typed: string, decision: 'approve' | 'deny', flags: DecideFlags): Promise<number> {
  const url = serviceUrl(ctx, flags.url);
  const requestId = await resolveRequestId(ctx, url, typed);
  const body = {
    requestId,
    decision,
    ...(flags.reason === undefined ? {} : { reason: flags.reason }),
    // The JSON text as typed: the service parses it strictly (duplicate keys, exact numbers).
    ...(flags.edit === undefined ? {} : { editedArguments: flags.edit }),
  };
  const answer = await approverRequest(ctx, url, 'POST', '/api/v1/decisions', body);
  if (answer.status !== 200) {
    const error = refusalOf(answer, url);
    if (flags.json === true) writeJson(ctx.io.stdout, { ok: false, requestId, error });
    else writeLine(ctx.io.stderr, `not recorded: ${displayText(error.code)}: ${displayText(error.message)}`);
    return EXIT_REJECTED;
  }
  const { request, editedRequest } = parsed(DecisionAnswer, answer.body, url);
  const audit = auditFlag(answer.body);
  if (flags.json === true) {
    writeJson(ctx.io.stdout, {
      ok: true,
      requestId,
      status: request?.status ?? null,
      ...(editedRequest === undefined ? {} : { editedRequest: { requestId: editedRequest.requestId, status: editedRequest.status, callId: editedRequest.call.callId } }),
      ...audit,
    });
  } else if (editedRequest !== undefined) {
    writeLine(ctx.io.stdout, `edited ${displayText(requestId)}: replaced by request ${displayText(editedRequest.requestId)} (${displayText(editedRequest.status)}); the original will not run`);
    for (const line of warningLines(editedRequest)) writeLine(ctx.io.stdout, line);
  } else {
    // The first line is short and fixed (the ids and the call follow under labels), so it never wraps at 80 columns.
    const state = request === null ? '' : `: the request is ${displayText(request.status)}, ${request.approvals} of ${request.requiredApprovals} approval${request.requiredApprovals === 1 ? '' : 's'}`;
    writeLine(ctx.io.stdout, `${decision === 'approve' ? 'approved' : 'denied'}${state}`);
    if (decision === 'deny' || request === null) writeLine(ctx.io.stdout, `  request    ${displayText(requestId)}`);
    // What was approved, exactly: the service's record of the call, not what the approver typed.
    if (decision === 'approve' && request !== null) for (const line of approvedCallLines(request)) writeLine(ctx.io.stdout, line);
  }
  if (audit.auditRecorded === false) writeLine(ctx.io.stderr, 'warning: the audit log could not record this decision; tell your administrator');
  return EXIT_OK;
}
