import * as semantic from '@countersign/semantic';
import { type Command, Option } from 'commander';
import { CliError, EXIT_OK } from '../cli-error.ts';
import { writeJson } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { parseIntegerFlag } from '../parse-number.ts';

interface EvalSemanticFlags {
  dataset: string;
  matcher: 'local' | 'baseline' | 'llm';
  split: 'all' | 'tune' | 'holdout';
  endpoint?: string;
  model?: string;
  timeoutMs: string;
  wordnet: boolean;
  vectors: boolean;
  json?: true;
}

/** The LLM matcher's constructor, when the installed @countersign/semantic has one. */
type LlmMatcherFactory = (options: { baseUrl: string; model: string; apiKey?: string | undefined; timeoutMs: number }) => semantic.TaskToolMatcher;

export const SEMANTIC_API_KEY_ENV = 'COUNTERSIGN_SEMANTIC_API_KEY';

export function registerEvalCommands(program: Command, ctx: CommandContext): void {
  const evalCommand = program.command('eval').description('Measure the optional semantic layer (task extraction and task-tool matching) on a labelled data set.');
  evalCommand
    .command('semantic')
    .description(
      'Run a task-tool matcher over a data set and print accuracy, F1, false-positive rate (unrelated tool allowed), false-negative rate (legitimate call denied), per-class confusion and p50/p99 decision latency.',
    )
    .option(
      '--dataset <name>',
      'every (CASA single-turn, CASA multi-turn, the dev set and each file under data/independent/), single, multi, or a JSON file',
      'every',
    )
    .addOption(
      new Option('--matcher <kind>', 'local (no network), baseline (plain BM25, top 3 of its server; for comparison) or llm (an OpenAI-compatible endpoint)')
        .choices(['local', 'baseline', 'llm'])
        .default('local'),
    )
    .addOption(new Option('--split <part>', 'all, or one part of the fixed tune/holdout split').choices(['all', 'tune', 'holdout']).default('all'))
    .option('--no-wordnet', 'local matcher without WordNet synonyms and hypernyms (stems only)')
    .option('--no-vectors', 'local matcher without word vectors (the previous matcher, local-bm25f-wordnet-learned@1)')
    .option('--endpoint <url>', 'base URL of an OpenAI-compatible API (with --matcher llm), e.g. http://127.0.0.1:11434/v1')
    .option('--model <name>', 'model name (with --matcher llm)')
    .option('--timeout-ms <ms>', 'per-decision time limit; a slower decision counts as uncertain (denied)', '30000')
    .option('--json', 'machine-readable output')
    .addHelpText('after', `\nWith --matcher llm the API key, if the endpoint needs one, is read from ${SEMANTIC_API_KEY_ENV}.\nExit status: 0 the evaluation ran, 2 bad flags or an unreadable data set.`)
    .action(async (flags: EvalSemanticFlags) => {
      ctx.setExitCode(await evalSemantic(ctx, flags));
    });
}

async function evalSemantic(ctx: CommandContext, flags: EvalSemanticFlags): Promise<number> {
  const timeoutMs = parseIntegerFlag('--timeout-ms', flags.timeoutMs, 1, 600_000);
  const matcher =
    flags.matcher === 'llm' ? await llmMatcher(ctx, flags, timeoutMs) : flags.matcher === 'baseline' ? semantic.createBaselineMatcher() : semantic.createLocalMatcher({ wordnet: flags.wordnet, ...(flags.vectors ? {} : { vectors: false }) });
  const every = flags.dataset === 'every';
  const names = every ? semantic.evalSetNames() : [flags.dataset === 'single' || flags.dataset === 'multi' ? flags.dataset : ctx.resolvePath(flags.dataset)];
  // All sets are read before any is run: a bad file fails fast, not after minutes of scoring.
  let datasets: semantic.Dataset[];
  try {
    datasets = names.map((which) => semantic.loadDataset(which));
  } catch (error) {
    if (error instanceof semantic.DatasetError) throw new CliError('io', error.message, { cause: error });
    throw error;
  }
  const reports: semantic.EvalReport[] = [];
  for (const dataset of datasets) reports.push(await semantic.runEval(dataset, { matcher, extractor: semantic.createLocalExtractor(), split: flags.split, timeoutMs }));
  if (flags.json) writeJson(ctx.io.stdout, every ? { ok: true, reports } : { ok: true, ...reports[0] });
  else ctx.io.stdout.write(reports.map((r) => semantic.formatReport(r)).join('\n'));
  return EXIT_OK;
}

/** The package's root export, else its `./llm` subpath; undefined when neither has one. */
async function findLlmMatcherFactory(): Promise<LlmMatcherFactory | undefined> {
  const fromRoot = (semantic as Record<string, unknown>).createLlmMatcher;
  if (typeof fromRoot === 'function') return fromRoot as LlmMatcherFactory;
  // A computed specifier: this command must build whether or not the subpath exists.
  const subpath = ['@countersign/semantic', 'llm'].join('/');
  try {
    const mod = (await import(subpath)) as Record<string, unknown>;
    return typeof mod.createLlmMatcher === 'function' ? (mod.createLlmMatcher as LlmMatcherFactory) : undefined;
  } catch {
    return undefined;
  }
}

async function llmMatcher(ctx: CommandContext, flags: EvalSemanticFlags, timeoutMs: number): Promise<semantic.TaskToolMatcher> {
  // Looked up by name so this command builds with or without the LLM matcher in the package.
  const factory = await findLlmMatcherFactory();
  if (factory === undefined) {
    throw new CliError('config', '--matcher llm is not available: this build of @countersign/semantic has no createLlmMatcher');
  }
  if (flags.endpoint === undefined || flags.model === undefined) throw new CliError('usage', '--matcher llm needs --endpoint <url> and --model <name>');
  let url: URL;
  try {
    url = new URL(flags.endpoint);
  } catch (error) {
    throw new CliError('usage', `--endpoint is not a URL: ${flags.endpoint}`, { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError('usage', '--endpoint must be an http(s) URL');
  return factory({ baseUrl: flags.endpoint, model: flags.model, apiKey: ctx.io.env[SEMANTIC_API_KEY_ENV], timeoutMs });
}
