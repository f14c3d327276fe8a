import { type GatewayConfig, loadGatewayConfigFile } from '@countersign/mcp/config';
import { CliError } from './cli-error.ts';
import type { CommandContext } from './command-context.ts';

/**
 * The gateway configuration `--config` names, validated, or the CLI's `config` error with
 * every problem. From `@countersign/mcp/config` only: a refused configuration loads no
 * gateway, MCP SDK or store. `{ env: NAME }` references of upstream environments read the
 * CLI's environment.
 */
export async function loadGatewayConfigForCli(ctx: CommandContext, configFile: string): Promise<{ config: GatewayConfig; path: string }> {
  const path = ctx.resolvePath(configFile);
  const loaded = await loadGatewayConfigFile(path, 'standalone', ctx.io.env);
  if (!loaded.ok) throw new CliError('config', `invalid gateway configuration:\n  ${loaded.problems.join('\n  ')}`);
  return { config: loaded.config, path };
}
