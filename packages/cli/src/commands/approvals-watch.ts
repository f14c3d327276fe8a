import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { displayText } from '@countersign/core/display';
import type { Command } from 'commander';
import { z } from 'zod';
import { ApprovalAnswer, listHeader, listLine } from '../approval-text.ts';
import { APPROVER_TOKEN_ENV, approverRequest, approverToken, refusalOf, SERVICE_URL_ENV, serviceUrl } from '../approver-http.ts';
import { CliError, EXIT_OK } from '../cli-error.ts';
import { writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { nextListingChange, StreamDropped, StreamSilent } from '../follow-listing.ts';
import { uniquePrefixes } from '../request-id-prefix.ts';
import type { ApproverFlags } from './approvals.ts';
import { decide } from './approvals-decide.ts';
import { parsed } from './approvals-read.ts';

const Pending = z.object({ approvals: z.array(ApprovalAnswer) });

/**
 * The id column's width, fixed for the whole session so lines printed minutes apart stay
 * aligned under the one header (ids are shown by their shortest unique start, 8+ characters).
 */
const ID_WIDTH = 10;

/** Reconnecting after a dropped stream: quick at first, then no more than every 15 s. */
const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 15_000;
/** Three of the service's 15 s heartbeats missed: the stream is taken as lost. */
const DEFAULT_IDLE_SECONDS = 45;

interface WatchFlags extends ApproverFlags {
  idleTimeout?: string;
}

/**
 * `approvals watch`: follows the service's live stream (the one the list page follows),
 * so a request appears the moment it starts waiting for you and the pending list is read
 * once per change, never on a timer. Prints each new request as a list line and says how
 * each one closed; reconnects with backoff when the stream drops (saying so once per
 * outage). Typed commands (`approve ID`, `deny ID [reason]`, `a`/`d` for short, ID as
 * shown) decide through the same code as `approve` and `deny`. Ends on Ctrl-C or at the
 * end of its input.
 */
export function registerApproverWatchCommand(approvals: Command, ctx: CommandContext): void {
  approvals
    .command('watch')
    .description('Follow the requests waiting for you, live; type "approve ID" or "deny ID [reason]" ("a"/"d" for short, ID as shown) to decide.')
    .option('--url <url>', `base URL of the Countersign service (default: $${SERVICE_URL_ENV})`)
    .option('--idle-timeout <seconds>', `reconnect when the live stream sends nothing, not even its 15 s heartbeat, for this long (default: ${DEFAULT_IDLE_SECONDS})`)
    .addHelpText(
      'after',
      `\nThe approver's API token is read from ${APPROVER_TOKEN_ENV}. watch follows the service's live event stream
(GET /events/approvals) and re-reads the pending list only when it changes; if the stream drops it
or stays silent past --idle-timeout (the service gone, or a proxy holding the socket) it says so once
and reconnects (0.5 s, doubling up to 15 s).
Exit status: 0 stopped, 2 usage, configuration or network error.`,
    )
    .action(async (flags: WatchFlags) => {
      ctx.setExitCode(await watch(ctx, flags));
    });
}

/** Seconds, fractions allowed (tests use a fraction of a second), from 0.1 to an hour. */
function idleTimeoutMs(text: string | undefined): number {
  if (text === undefined) return DEFAULT_IDLE_SECONDS * 1000;
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0.1 && value <= 3600)) throw new CliError('usage', `--idle-timeout must be a number of seconds from 0.1 to 3600, got "${text}"`);
  return Math.round(value * 1000);
}

async function watch(ctx: CommandContext, flags: WatchFlags): Promise<number> {
  const url = serviceUrl(ctx, flags.url);
  const idleMs = idleTimeoutMs(flags.idleTimeout);
  const stop = new AbortController();
  const signal = ctx.io.signal === undefined ? stop.signal : AbortSignal.any([ctx.io.signal, stop.signal]);
  const shown = new Map<string, string>();
  let headed = false;
  let first = true;
  const refresh = async () => {
    const answer = await approverRequest(ctx, url, 'GET', '/api/v1/approvals?status=pending&limit=1000');
    if (answer.status !== 200) refusalOf(answer, url);
    const views = parsed(Pending, answer.body, url).approvals;
    const prefixes = uniquePrefixes(views.map((v) => v.requestId));
    for (const view of views) {
      const prefix = prefixes.get(view.requestId) ?? view.requestId;
      // A request already shown is printed again only when a newcomer made its id start ambiguous.
      if (shown.get(view.requestId) === prefix) continue;
      if (!headed) writeLine(ctx.io.stdout, listHeader(ID_WIDTH));
      headed = true;
      shown.set(view.requestId, prefix);
      writeLine(ctx.io.stdout, listLine(view, prefix, ID_WIDTH, Date.now()));
    }
    const open = new Set(views.map((v) => v.requestId));
    for (const [requestId, prefix] of shown) {
      if (open.has(requestId)) continue;
      shown.delete(requestId);
      writeLine(ctx.io.stdout, await closedLine(ctx, url, requestId, prefix));
    }
    if (first && !headed) writeLine(ctx.io.stdout, 'no pending requests you may decide; watching…');
    first = false;
  };
  const commands = readCommands(ctx, url, signal, () => stop.abort());
  // The first connection answers at once (no version yet), which gives the first read.
  let version = '';
  let retryMs = FIRST_RETRY_MS;
  let dropped = false;
  while (!signal.aborted) {
    try {
      version = await nextListingChange({
        base: url,
        token: approverToken(ctx),
        since: version,
        signal,
        idleMs,
        onOpen: () => {
          if (dropped) writeLine(ctx.io.stderr, 'live stream back');
          dropped = false;
          retryMs = FIRST_RETRY_MS;
        },
      });
      await refresh();
    } catch (error) {
      if (signal.aborted) break;
      if (!(error instanceof StreamDropped)) throw error;
      if (!dropped) writeLine(ctx.io.stderr, error instanceof StreamSilent ? `live stream silent: ${error.message}; reconnecting…` : `live stream lost (${error.message}); reconnecting…`);
      dropped = true;
      // An abort ends the wait early; it is the loop's exit, not an error.
      await sleep(retryMs, undefined, { signal }).catch(() => {});
      retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
    }
  }
  await commands;
  return EXIT_OK;
}

/** How a request that left your pending list ended, as one line; read once, when it leaves. */
async function closedLine(ctx: CommandContext, url: string, requestId: string, prefix: string): Promise<string> {
  const answer = await approverRequest(ctx, url, 'GET', `/api/v1/approvals/${encodeURIComponent(requestId)}`).catch(() => undefined);
  const view = answer?.status === 200 ? ApprovalAnswer.safeParse(answer.body) : undefined;
  if (view?.success !== true) return `   ${prefix} is no longer waiting for you`;
  const last = view.data.decisions.at(-1);
  const by = last === undefined ? '' : ` by ${displayText(last.approver)}`;
  return `   ${prefix} ${displayText(view.data.status)}${by} (${displayText(view.data.call.toolName)}); no longer waiting for you`;
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
