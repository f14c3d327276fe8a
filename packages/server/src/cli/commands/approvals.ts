import type { Command } from 'commander';
import { CliError, EXIT_OK, EXIT_REJECTED } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';

/** The approver's bearer token comes from the environment, never a flag (flags show in `ps` and shell history). */
export const APPROVER_TOKEN_ENV = 'COUNTERSIGN_APPROVER_TOKEN';

interface ApproverFlags {
  url: string;
  json?: true;
}

interface ApiAnswer {
  status: number;
  body: unknown;
}

/** `countersign approvals …`: an approver acting on a running service over its HTTP API. */
export function registerApprovalsCommands(program: Command, ctx: CommandContext): void {
  const approvals = program.command('approvals').description(`Act on approval requests of a running service, as an approver (token in ${APPROVER_TOKEN_ENV}).`);
  approvals
    .command('revoke')
    .description('Withdraw a pending or approved request that has not run yet: a token the agent already holds is refused.')
    .argument('<requestId>', 'the approval request id')
    .requiredOption('--url <url>', 'base URL of the Countersign service, e.g. http://127.0.0.1:8787')
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      `
The approver's API token is read from ${APPROVER_TOKEN_ENV}.
Exit status: 0 revoked, 1 refused (not found, already consumed, not revocable), 2 usage, configuration or network error.`,
    )
    .action(async (requestId: string, flags: ApproverFlags) => {
      ctx.setExitCode(await revoke(ctx, requestId, flags));
    });
}

async function revoke(ctx: CommandContext, requestId: string, flags: ApproverFlags): Promise<number> {
  const answer = await postJson(ctx, flags.url, '/api/v1/decisions', { requestId, decision: 'revoke' });
  if (answer.status === 200) {
    const request = (answer.body as { request?: { status?: string; call?: { toolName?: string } } | null }).request;
    if (flags.json === true) writeJson(ctx.io.stdout, { ok: true, requestId, status: request?.status ?? 'revoked', ...auditFlag(answer.body) });
    else writeLine(ctx.io.stdout, `revoked ${requestId}${request?.call?.toolName === undefined ? '' : ` (${JSON.stringify(request.call.toolName)})`}`);
    if (auditFlag(answer.body).auditRecorded === false) writeLine(ctx.io.stderr, 'warning: the audit log could not record this revocation; tell your administrator');
    return EXIT_OK;
  }
  const error = apiError(answer);
  if (error === undefined || (answer.status !== 404 && answer.status !== 409)) {
    // Not an answer about this request: the token (401/403), the service (5xx) or the call itself is wrong.
    throw new CliError('config', `${flags.url} refused the request (HTTP ${answer.status}${error === undefined ? '' : `, ${error.code}: ${error.message}`})`);
  }
  if (flags.json === true) writeJson(ctx.io.stdout, { ok: false, requestId, error });
  else writeLine(ctx.io.stderr, `not revoked: ${error.code}: ${error.message}`);
  return EXIT_REJECTED;
}

function auditFlag(body: unknown): { auditRecorded?: false } {
  return (body as { auditRecorded?: unknown }).auditRecorded === false ? { auditRecorded: false } : {};
}

function apiError(answer: ApiAnswer): { code: string; message: string; status?: string } | undefined {
  const error = (answer.body as { error?: { code?: unknown; message?: unknown; status?: unknown } } | null)?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string') return undefined;
  return { code: error.code, message: error.message, ...(typeof error.status === 'string' ? { status: error.status } : {}) };
}

async function postJson(ctx: CommandContext, base: string, path: string, body: unknown): Promise<ApiAnswer> {
  const token = ctx.io.env[APPROVER_TOKEN_ENV];
  if (token === undefined || token === '') throw new CliError('config', `${APPROVER_TOKEN_ENV} must hold your approver API token`);
  let url: URL;
  try {
    url = new URL(path, base);
  } catch {
    throw new CliError('usage', `--url is not a URL: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError('usage', '--url must be http:// or https://');
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    throw new CliError('io', `cannot reach ${url.origin}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await response.text().catch(() => '');
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: reported by status below.
  }
  return { status: response.status, body: parsed };
}
