import type { Command } from 'commander';
import { z } from 'zod';
import { ApprovalAnswer, detailText, listHeader, listLine } from '../approval-text.ts';
import { APPROVER_TOKEN_ENV, approverRequest, refusalOf, SERVICE_URL_ENV, serviceUrl } from '../approver-http.ts';
import { resolveRequestId, uniquePrefixes } from '../request-id-prefix.ts';
import { CliError, EXIT_OK, EXIT_REJECTED } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import type { ApproverFlags } from './approvals.ts';

const STATUSES = ['pending', 'approved', 'denied', 'revoked', 'consumed', 'expired', 'edited'] as const;

interface ListFlags extends ApproverFlags {
  status: string;
  limit: string;
}

/** `approvals list` and `approvals show`: what an approver may decide, rendered as safely as the page renders it. */
export function registerApproverReadCommands(approvals: Command, ctx: CommandContext): void {
  approvals
    .command('list')
    .description('List the requests you may decide (newest first); "!" marks calls with hidden characters or schema problems.')
    .option('--url <url>', `base URL of the Countersign service, e.g. http://127.0.0.1:8787 (default: $${SERVICE_URL_ENV})`)
    .option('--status <status>', `one of ${STATUSES.join(', ')}`, 'pending')
    .option('--limit <n>', 'at most this many (1-1000)', '100')
    .option('--json', 'machine-readable output (the API views, unescaped)')
    .addHelpText('after', `\nThe approver's API token is read from ${APPROVER_TOKEN_ENV}, the service's URL from --url or ${SERVICE_URL_ENV}.\nExit status: 0 listed, 2 usage, configuration or network error.`)
    .action(async (flags: ListFlags) => {
      ctx.setExitCode(await list(ctx, flags));
    });
  approvals
    .command('show')
    .description('Show one request: warnings first, then the exact call (tool, arguments, digests), who asked and the decisions so far.')
    .argument('<requestId>', 'the approval request id, or the start of it as list shows it')
    .option('--url <url>', `base URL of the Countersign service, e.g. http://127.0.0.1:8787 (default: $${SERVICE_URL_ENV})`)
    .option('--json', 'machine-readable output (the API view, unescaped)')
    .addHelpText('after', `\nThe approver's API token is read from ${APPROVER_TOKEN_ENV}, the service's URL from --url or ${SERVICE_URL_ENV}.\nExit status: 0 shown, 1 not found (or not yours to decide), 2 usage, configuration or network error.`)
    .action(async (requestId: string, flags: ApproverFlags) => {
      ctx.setExitCode(await show(ctx, requestId, flags));
    });
}

async function list(ctx: CommandContext, flags: ListFlags): Promise<number> {
  if (!(STATUSES as readonly string[]).includes(flags.status)) throw new CliError('usage', `--status must be one of ${STATUSES.join(', ')}`);
  if (!/^\d{1,4}$/.test(flags.limit) || Number(flags.limit) < 1 || Number(flags.limit) > 1000) throw new CliError('usage', '--limit must be 1-1000');
  const url = serviceUrl(ctx, flags.url);
  const answer = await approverRequest(ctx, url, 'GET', `/api/v1/approvals?status=${flags.status}&limit=${flags.limit}`);
  if (answer.status !== 200) refusalOf(answer, url);
  const views = parsed(z.object({ approvals: z.array(ApprovalAnswer) }), answer.body, url).approvals;
  if (flags.json === true) {
    writeJson(ctx.io.stdout, { approvals: views });
    return EXIT_OK;
  }
  if (views.length === 0) {
    writeLine(ctx.io.stdout, `no ${flags.status} requests you may decide`);
    return EXIT_OK;
  }
  const now = Date.now();
  const prefixes = uniquePrefixes(views.map((v) => v.requestId));
  const idWidth = Math.max(2, ...[...prefixes.values()].map((p) => p.length));
  writeLine(ctx.io.stdout, listHeader(idWidth));
  for (const view of views) writeLine(ctx.io.stdout, listLine(view, prefixes.get(view.requestId) ?? view.requestId, idWidth, now));
  return EXIT_OK;
}

async function show(ctx: CommandContext, typed: string, flags: ApproverFlags): Promise<number> {
  const url = serviceUrl(ctx, flags.url);
  const requestId = await resolveRequestId(ctx, url, typed);
  const answer = await approverRequest(ctx, url, 'GET', `/api/v1/approvals/${encodeURIComponent(requestId)}`);
  if (answer.status !== 200) {
    const error = refusalOf(answer, url);
    if (flags.json === true) writeJson(ctx.io.stdout, { ok: false, requestId, error });
    else writeLine(ctx.io.stderr, `not shown: ${error.code}: ${error.message}`);
    return EXIT_REJECTED;
  }
  const view = parsed(ApprovalAnswer, answer.body, url);
  if (flags.json === true) writeJson(ctx.io.stdout, answer.body);
  else for (const line of detailText(view, Date.now())) writeLine(ctx.io.stdout, line);
  return EXIT_OK;
}

/** The answer in the shape the CLI reads, or a CliError (exit 2): the service did not answer as the API does. */
export function parsed<T>(schema: z.ZodType<T>, body: unknown, url: string): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new CliError('io', `${url} did not answer as a Countersign service (unexpected response shape)`);
  return result.data;
}
