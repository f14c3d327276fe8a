import { Command, CommanderError } from 'commander';
import { CliError, EXIT_ERROR, EXIT_OK } from './cli-error.ts';
import { type CliIo, writeJson, writeLine } from './cli-io.ts';
import { commandOf, registerSummaries } from './command-table.ts';
import { createCommandContext } from './command-context.ts';
import { packageVersion } from './version.ts';

/**
 * Runs the `countersign` CLI on `argv` (without the node and script paths) and
 * resolves to the exit code. Never calls process.exit and never throws, so tests
 * run commands in-process.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode = EXIT_OK;
  const ctx = createCommandContext(io, (code) => {
    exitCode = code;
  });
  const program = buildProgram(io);
  try {
    // Only the command asked for is imported (see command-table.ts); without one, the
    // root help lists them all from their summaries.
    const command = commandOf(argv);
    if (command === undefined) registerSummaries(program);
    else (await command.load())(program, ctx);
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error, io, argv.includes('--json'));
  }
}

export function buildProgram(io: CliIo): Command {
  // Settings made here are inherited by every subcommand created with .command().
  return new Command('countersign')
    .description('Call-bound approvals for AI agent tool calls: serve the approval service, manage keys, check policies and audit logs.')
    .version(packageVersion(), '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError('(add --help for usage)')
    .allowExcessArguments(false);
}

function reportError(error: unknown, io: CliIo, json: boolean): number {
  if (error instanceof CommanderError) {
    // Commander has already printed help, the version or its own error message.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT_OK;
    if (json) writeJson(io.stdout, { ok: false, error: { code: 'usage', message: error.message } });
    return EXIT_ERROR;
  }
  const code = error instanceof CliError ? error.code : 'internal';
  const message = error instanceof Error ? error.message : String(error);
  writeLine(io.stderr, code === 'internal' ? `countersign: unexpected error: ${message}` : `countersign: ${message}`);
  if (json) writeJson(io.stdout, { ok: false, error: { code, message } });
  return EXIT_ERROR;
}
