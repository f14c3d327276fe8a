import type { Command } from 'commander';
import { loadAuthFile } from '../serve/auth-file.ts';
import { AuthFileError } from '../serve/auth-file-error.ts';
import { CliError, EXIT_OK, EXIT_REJECTED } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { countAuthSummary, describeAuthSummary } from '../describe-auth.ts';
import { registerAuthPasskeys } from './auth-passkeys.ts';

export function registerAuthCommands(program: Command, ctx: CommandContext): void {
  const auth = program.command('auth').description('Validate the agents and approvers file of `serve --auth`; list registered passkeys.');
  registerAuthPasskeys(auth, ctx);

  auth
    .command('check')
    .description('Load and validate an auth file (.yaml, .yml or .json) as `serve --auth` would, resolving env:NAME secrets from this environment; print who it lets in, or every problem with its path.')
    .argument('<file>', 'auth file')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nNo secret is ever printed. Exit status: 0 valid, 1 invalid (including an unset env:NAME), 2 unreadable file or bad flags.')
    .action(async (file: string, flags: { json?: true }) => {
      ctx.setExitCode(await checkAuth(ctx, file, flags.json === true));
    });
}

async function checkAuth(ctx: CommandContext, file: string, json: boolean): Promise<number> {
  const out = ctx.io.stdout;
  try {
    const { summary } = await loadAuthFile(ctx.resolvePath(file), ctx.io.env);
    if (json) {
      writeJson(out, { ok: true, file, ...summary });
      return EXIT_OK;
    }
    writeLine(out, `${file}: valid, ${countAuthSummary(summary)}`);
    for (const [label, text] of describeAuthSummary(summary)) writeLine(out, `  ${label.padEnd(9)} ${text}`);
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof AuthFileError)) throw error;
    if (error.code === 'unreadable_auth') throw new CliError('io', error.problems.join('; '), { cause: error });
    if (json) {
      writeJson(out, { ok: false, file, problems: error.problems });
    } else {
      const n = error.problems.length;
      writeLine(out, `${file}: invalid auth file, ${n} problem${n === 1 ? '' : 's'}:`);
      for (const problem of error.problems) writeLine(out, `  ${problem}`);
    }
    return EXIT_REJECTED;
  }
}
