import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { CliError, EXIT_OK } from '../cli-error.ts';
import { writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { loadGatewayConfigForCli } from '../load-gateway-config.ts';

interface PinFlags {
  out?: string;
}

/** Where `mcp pin` writes when neither `--out` nor the config's `lock` says: beside the config. */
export const DEFAULT_LOCK_FILE = 'mcp.lock.json';

export function registerMcpPin(mcp: Command, ctx: CommandContext): void {
  mcp
    .command('pin')
    .description("List each upstream's tools and write the lock the gateway pins from (tool name → SHA-256 of its definition, and the definition for review).")
    .option('--out <file>', "where to write the lock (default: the config's `lock`, else mcp.lock.json beside the config)")
    .addHelpText(
      'after',
      '\nUsage: countersign mcp pin --config gateway.yaml [--out mcp.lock.json]\n' +
        'Review the lock (or its diff) like a package lock, commit it, and set `lock: <file>` in the config:\n' +
        'the gateway then pins from it at start. A tool whose definition differs from the lock is hidden,\n' +
        'refused and audited, and waits for re-approval; a tool the lock does not list waits for review.\n' +
        'Nothing is written to the store. Exit status: 0 written, 2 usage, configuration or I/O error.',
    )
    .action(async (flags: PinFlags, command: Command) => {
      const config = (command.optsWithGlobals() as { config?: string }).config;
      if (config === undefined) throw new CliError('usage', "required option '--config <file>' not specified");
      ctx.setExitCode(await pin(ctx, config, flags));
    });
}

async function pin(ctx: CommandContext, configFile: string, flags: PinFlags): Promise<number> {
  const { config, path: configPath } = await loadGatewayConfigForCli(ctx, configFile);
  // The gateway (MCP SDK, upstream clients) only once the configuration holds.
  const { lockText, lockUpstreams } = await import('@countersign/mcp');
  const out = flags.out !== undefined ? ctx.resolvePath(flags.out) : (config.lock ?? join(dirname(configPath), DEFAULT_LOCK_FILE));
  const lock = await lockUpstreams(config.upstreams, config.namespaced).catch((error: unknown) => {
    throw new CliError('io', `cannot list the upstreams' tools: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });
  try {
    await writeFile(out, lockText(lock), 'utf8');
  } catch (error) {
    throw new CliError('io', `cannot write ${out}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const names = Object.keys(lock.tools);
  writeLine(ctx.io.stdout, `locked ${names.length} tool${names.length === 1 ? '' : 's'} of ${config.upstreams.map((u) => u.name).join(', ')} in ${out}`);
  for (const name of names) writeLine(ctx.io.stdout, `  ${name}  ${lock.tools[name]?.digest}`);
  return EXIT_OK;
}
