import { extname } from 'node:path';
import { CanonicalizationError, canonicalizeArguments } from '@countersign/core/canonical';
import { askPolicy, EXAMPLE_POLICY_YAML, loadPolicyFile, PolicyError, type RulePolicy, type Verdict } from '@countersign/core/policy';
import type { Command } from 'commander';
import { CliError, EXIT_OK, EXIT_REJECTED } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { describeVerdict } from '../describe-verdict.ts';
import { readCatalogNames } from '../read-catalog.ts';

interface CheckFlags {
  tool?: string;
  args: string;
  principal: string;
  catalog?: string;
  json?: true;
}

export function registerPolicyCommands(program: Command, ctx: CommandContext): void {
  const policy = program.command('policy').description('Validate and print policies.');

  policy
    .command('check')
    .description('Load and validate a policy file (.yaml, .yml or .json); print its rules, or every problem with its path.')
    .argument('<file>', 'policy file')
    .option('--tool <name>', 'also evaluate one call to this tool and print the verdict')
    .option('--args <json>', 'arguments of the call given with --tool', '{}')
    .option('--principal <id>', 'principal of the call given with --tool', 'user:example')
    .option('--catalog <file>', 'the tools that exist (a pin file, or `tools:` as a list): also warn about patterns that match none of them')
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      '\nEvery problem is reported at once. A valid policy may still get warnings: rules that can never match\n(shadowed by an earlier rule without `when`), and with --catalog patterns that match no tool.\nExit status: 0 valid (with or without warnings), 1 invalid, 2 unreadable file or bad flags.',
    )
    .action(async (file: string, flags: CheckFlags) => {
      ctx.setExitCode(await checkPolicy(ctx, file, flags));
    });

  policy
    .command('example')
    .description('Print the example policy (the one `serve` uses without --policy), to copy and edit.')
    .option('--json', 'print it as a JSON string')
    .action((flags: { json?: true }) => {
      if (flags.json) writeJson(ctx.io.stdout, { format: 'yaml', policy: EXAMPLE_POLICY_YAML });
      else ctx.io.stdout.write(EXAMPLE_POLICY_YAML);
    });
}

async function checkPolicy(ctx: CommandContext, file: string, flags: CheckFlags): Promise<number> {
  const out = ctx.io.stdout;
  let loaded: RulePolicy;
  try {
    loaded = await loadPolicyFile(ctx.resolvePath(file));
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    if (error.code === 'unreadable_policy') throw new CliError('io', error.problems.join('; '), { cause: error });
    if (flags.json) {
      writeJson(out, { ok: false, file, problems: error.problems });
    } else {
      const n = error.problems.length;
      writeLine(out, `${file}: invalid policy, ${n} problem${n === 1 ? '' : 's'}:`);
      for (const problem of error.problems) writeLine(out, `  ${problem}`);
    }
    return EXIT_REJECTED;
  }

  const verdict = flags.tool === undefined ? undefined : await evaluate(loaded, flags.tool, flags);
  const warnings = loaded.warnings(flags.catalog === undefined ? undefined : await readCatalogNames(ctx.resolvePath(flags.catalog)));
  if (flags.json) {
    writeJson(out, {
      ok: true,
      file,
      format: extname(file).toLowerCase() === '.json' ? 'json' : 'yaml',
      rules: loaded.ruleIds,
      warnings,
      ...(verdict === undefined ? {} : { evaluated: { tool: flags.tool, verdict } }),
    });
    return EXIT_OK;
  }
  const ids = loaded.ruleIds;
  writeLine(out, `${file}: valid, ${ids.length} rule${ids.length === 1 ? '' : 's'} (first match wins; tools no rule matches are denied)`);
  ids.forEach((id, i) => {
    writeLine(out, `  ${i + 1}. ${id}`);
  });
  for (const warning of warnings) writeLine(out, `  warning: ${warning}`);
  if (verdict !== undefined) writeLine(out, `${flags.tool} ${flags.args} → ${describeVerdict(verdict)}`);
  return EXIT_OK;
}

async function evaluate(policy: RulePolicy, toolName: string, flags: CheckFlags): Promise<Verdict> {
  let args: unknown;
  try {
    args = canonicalizeArguments(flags.args).value;
  } catch (error) {
    const detail = error instanceof CanonicalizationError ? `${error.code}: ${error.message}` : String(error);
    throw new CliError('usage', `--args is not valid tool-call JSON (${detail})`, { cause: error });
  }
  return askPolicy(policy, { toolName, args, principal: flags.principal, runId: 'policy-check', sessionId: 'policy-check' });
}
