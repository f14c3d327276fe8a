import type { Command } from 'commander';
import { APPROVER_TOKEN_ENV, approverRequest, auditFlag, refusalOf, SERVICE_URL_ENV, serviceUrl } from '../approver-http.ts';
import { EXIT_OK, EXIT_REJECTED } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { registerApproverDecisionCommands } from './approvals-decide.ts';
import { registerApproverReadCommands } from './approvals-read.ts';
import { registerApproverWatchCommand } from './approvals-watch.ts';

export { APPROVER_TOKEN_ENV };

export interface ApproverFlags {
  /** Else COUNTERSIGN_URL. */
  url?: string;
  json?: true;
}

/** `countersign approvals …`: an approver acting on a running service over its HTTP API. */
export function registerApprovalsCommands(program: Command, ctx: CommandContext): void {
  const approvals = program
    .command('approvals')
    .description(`Act on approval requests of a running service, as an approver (token in ${APPROVER_TOKEN_ENV}).`)
    .addHelpText(
      'after',
      `
Where the service and your token come from (first found wins):
  URL    --url, then $${SERVICE_URL_ENV}, then "url" in the config file
  token  $${APPROVER_TOKEN_ENV}, then the file named by "tokenFile" in the config file
Config file: $XDG_CONFIG_HOME/countersign/config.json (default ~/.config/countersign/config.json),
e.g. {"url": "http://127.0.0.1:8787", "tokenFile": "approver-token"} (tokenFile relative to the
config's folder). A token file, or a "token" key in the config, must be readable by you alone
(chmod 600): one other users may read is refused.`,
    );
  registerApproverReadCommands(approvals, ctx);
  registerApproverDecisionCommands(approvals, ctx);
  registerApproverWatchCommand(approvals, ctx);
  approvals
    .command('revoke')
    .description('Withdraw a pending or approved request that has not run yet: a token the agent already holds is refused.')
    .argument('<requestId>', 'the approval request id')
    .option('--url <url>', `base URL of the Countersign service, e.g. http://127.0.0.1:8787 (default: $${SERVICE_URL_ENV})`)
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
  const url = serviceUrl(ctx, flags.url);
  const answer = await approverRequest(ctx, url, 'POST', '/api/v1/decisions', { requestId, decision: 'revoke' });
  if (answer.status === 200) {
    const request = (answer.body as { request?: { status?: string; call?: { toolName?: string } } | null }).request;
    if (flags.json === true) writeJson(ctx.io.stdout, { ok: true, requestId, status: request?.status ?? 'revoked', ...auditFlag(answer.body) });
    else writeLine(ctx.io.stdout, `revoked ${requestId}${request?.call?.toolName === undefined ? '' : ` (${JSON.stringify(request.call.toolName)})`}`);
    if (auditFlag(answer.body).auditRecorded === false) writeLine(ctx.io.stderr, 'warning: the audit log could not record this revocation; tell your administrator');
    return EXIT_OK;
  }
  // Not an answer about this request (the token, the service or the call itself is wrong) throws: exit 2.
  const error = refusalOf(answer, url);
  if (flags.json === true) writeJson(ctx.io.stdout, { ok: false, requestId, error });
  else writeLine(ctx.io.stderr, `not revoked: ${error.code}: ${error.message}`);
  return EXIT_REJECTED;
}
