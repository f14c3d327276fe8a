import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { z } from 'zod';
import { ApprovalAnswer, listHeader, listLine } from '../approval-text.ts';
import { APPROVER_TOKEN_ENV, approverRequest, refusalOf, SERVICE_URL_ENV, serviceUrl } from '../approver-http.ts';
import { EXIT_OK } from '../cli-error.ts';
import { writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { parseIntegerFlag } from '../parse-number.ts';
import { uniquePrefixes } from '../request-id-prefix.ts';
import type { ApproverFlags } from './approvals.ts';
import { decide } from './approvals-decide.ts';
import { parsed } from './approvals-read.ts';

interface WatchFlags extends ApproverFlags {
  interval: string;
}

const Pending = z.object({ approvals: z.array(ApprovalAnswer) });

/**
 * `approvals watch`: prints each request as it starts waiting for you and says when one
 * closes, re-reading the pending list every `--interval`; typed commands (`approve ID`,
 * `deny ID [reason]`, ID as the list shows it) decide from the same terminal through
 * the same code as `approve` and `deny`. Ends on Ctrl-C or at the end of its input.
 */
export function registerApproverWatchCommand(approvals: Command, ctx: CommandContext): void {
  approvals
    .command('watch')
    .description('Follow the requests waiting for you; type "approve ID" or "deny ID [reason]" to decide (ID as shown).')
    .option('--url <url>', `base URL of the Countersign service (default: $${SERVICE_URL_ENV})`)
    .option('--interval <ms>', 'how often to re-read the pending list', '2000')
    .addHelpText('after', `\nThe approver's API token is read from ${APPROVER_TOKEN_ENV}.\nExit status: 0 stopped, 2 usage, configuration or network error.`)
    .action(async (flags: WatchFlags) => {
      ctx.setExitCode(await watch(ctx, flags));
    });
}

async function watch(ctx: CommandContext, flags: WatchFlags): Promise<number> {
  const url = serviceUrl(ctx, flags.url);
  const interval = parseIntegerFlag('--interval', flags.interval, 100, 600_000);
  const stop = new AbortController();
  const signal = ctx.io.signal === undefined ? stop.signal : AbortSignal.any([ctx.io.signal, stop.signal]);
  const shown = new Map<string, string>();
  let headed = false;
  const poll = async () => {
    const answer = await approverRequest(ctx, url, 'GET', '/api/v1/approvals?status=pending&limit=1000');
    if (answer.status !== 200) refusalOf(answer, url);
    const views = parsed(Pending, answer.body, url).approvals;
    const prefixes = uniquePrefixes(views.map((v) => v.requestId));
    const width = Math.max(2, ...[...prefixes.values()].map((p) => p.length));
    for (const view of views) {
      if (shown.has(view.requestId)) continue;
      if (!headed) writeLine(ctx.io.stdout, listHeader(width));
      headed = true;
      const prefix = prefixes.get(view.requestId) ?? view.requestId;
      shown.set(view.requestId, prefix);
      writeLine(ctx.io.stdout, listLine(view, prefix, width, Date.now()));
    }
    const open = new Set(views.map((v) => v.requestId));
    for (const [requestId, prefix] of shown) {
      if (open.has(requestId)) continue;
      shown.delete(requestId);
      writeLine(ctx.io.stdout, `   ${prefix} is no longer waiting for you`);
    }
  };
  const commands = readCommands(ctx, url, signal, () => stop.abort());
  await poll();
  if (!headed) writeLine(ctx.io.stdout, 'no pending requests you may decide; watching…');
  while (!signal.aborted) {
    // An abort ends the wait early; it is the loop's exit, not an error.
    await sleep(interval, undefined, { signal }).catch(() => {});
    if (!signal.aborted) await poll();
  }
  await commands;
  return EXIT_OK;
}

/** Lines typed while watching: `approve ID`, `deny ID [reason]`; anything else gets a one-line hint. */
async function readCommands(ctx: CommandContext, url: string, signal: AbortSignal, ended: () => void): Promise<void> {
  if (ctx.io.stdin === undefined) return;
  const lines = createInterface({ input: Readable.from(ctx.io.stdin), crlfDelay: Number.POSITIVE_INFINITY });
  signal.addEventListener('abort', () => lines.close(), { once: true });
  for await (const line of lines) {
    const [verb, id, ...rest] = line.trim().split(/\s+/);
    if (verb === undefined || verb === '') continue;
    if ((verb === 'approve' || verb === 'a' || verb === 'deny' || verb === 'd') && id !== undefined) {
      const decision = verb.startsWith('a') ? 'approve' : 'deny';
      const reason = rest.join(' ');
      try {
        await decide(ctx, id, decision, { url, ...(reason === '' ? {} : { reason }) });
      } catch (error) {
        writeLine(ctx.io.stderr, error instanceof Error ? error.message : String(error));
      }
      continue;
    }
    writeLine(ctx.io.stderr, 'type "approve ID" or "deny ID [reason]" (ID as shown), or Ctrl-C to stop');
  }
  // End of input (Ctrl-D, or a finished pipe): stop watching.
  ended();
}
