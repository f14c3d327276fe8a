import { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import { CliError } from '../cli-error.ts';
import type { CommandContext } from '../command-context.ts';
import { loadGatewayConfigForCli } from '../load-gateway-config.ts';
import { registerMcpPin } from './mcp-pin.ts';

export interface McpFlags {
  config?: string;
  http?: true;
  insecureNoToken?: true;
}

export function registerMcp(program: Command, ctx: CommandContext): void {
  const mcp = program
    .command('mcp')
    .description('Run the MCP gateway on stdio: in front of the upstream MCP servers the config names, with pins, policy and call-bound approvals.')
    // Not `requiredOption`: `mcp pin` reads the same option, and commander would demand it of the parent first.
    .option('--config <file>', 'gateway configuration (.yaml, .yml or .json)')
    .option('--http', "serve Streamable HTTP (the config's `http` section, bearer token from its `tokenEnv`) instead of stdio")
    .option('--insecure-no-token', 'with --http on a loopback host: serve without a bearer token (local development only; any local process can then call the gateway)')
    .addHelpText(
      'after',
      '\nstdout carries only MCP messages; everything the gateway reports goes to stderr.\n' +
        'Approvals are decided on the page of `countersign serve` running on the same store.\n' +
        'Example config:\n' +
        '  upstreams:\n' +
        '    - name: memory\n' +
        '      command: npx\n' +
        '      args: ["-y", "@modelcontextprotocol/server-memory"]\n' +
        '  policy: ./policy.yaml            # relative paths: from the config file\n' +
        '  store: { sqlite: .countersign/countersign.sqlite }\n' +
        '  principal: alice\n' +
        '  agent: mcp-gateway                # the agent id the runtime records model calls under\n' +
        '  calls: direct                     # or recorded: every tools/call must match a recorded model call\n' +
        '  approvalWaitMs: 45000             # a client without a progress token gets the link within 45 s (its SDK times out at 60)\n' +
        '  approvalUrl: http://127.0.0.1:8787\n' +
        '  lock: ./mcp.lock.json              # operator pins (`countersign mcp pin` writes it) instead of trust on first use\n' +
        '  relistBeforeCall: false           # true: list the upstream before every call (catches unannounced changes; a round trip per call)\n' +
        '\nOr with a Countersign server as the approval service (no store, policy, trustOnFirstUse or lock here: the server\'s apply):\n' +
        '  approvalService:\n' +
        '    url: https://countersign.example.com\n' +
        '    tokenEnv: COUNTERSIGN_AGENT_TOKEN # the gateway\'s agent token, read from this env var, never from the file\n' +
        '\nA call that needs approval: clients that declared elicitation.url get a URL elicitation to the approval page\n' +
        '(then wait up to elicitationWaitMs, default 10 min); others wait up to approvalWaitMs with progress notifications,\n' +
        'then get an "approval required" result with the link; the identical retry runs once approved.\n',
    )
    .action(async (flags: McpFlags) => {
      if (flags.config === undefined) throw new CliError('usage', "required option '--config <file>' not specified");
      ctx.setExitCode(await runMcp(ctx, { ...flags, config: flags.config }));
    });
  registerMcpPin(mcp, ctx);
}

async function runMcp(ctx: CommandContext, flags: McpFlags & { config: string }): Promise<number> {
  const { stdin, stdout } = ctx.io;
  if (flags.http !== true && (!(stdin instanceof Readable) || !(stdout instanceof Writable))) {
    throw new CliError('usage', 'countersign mcp needs a stdin and stdout stream (it speaks MCP over stdio)');
  }
  // Everything that can be wrong with the configuration fails before the store is touched,
  // and before the gateway, the MCP SDK and the stores are loaded (seconds of start-up).
  const { config } = await loadGatewayConfigForCli(ctx, flags.config);
  return (await import('./mcp-serve.ts')).serveMcp(ctx, flags, config);
}
