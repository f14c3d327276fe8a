import type { MatchDecision, TaskExtractor, TaskToolMatcher } from '../matcher/types.ts';
import type { Split } from './casa.ts';
import type { Dataset } from './datasets.ts';
import { computeMetrics, type Metrics, type Outcome, percentile } from './metrics.ts';

export interface EvalOptions {
  matcher: TaskToolMatcher;
  /** Needed for records that carry a conversation instead of a task. */
  extractor?: TaskExtractor | undefined;
  split?: Split | 'all' | undefined;
  /** Per-decision budget; a matcher that overruns is aborted and counted as `uncertain`. */
  timeoutMs?: number | undefined;
  /**
   * Make one untimed decision first (default true), so one-time costs (loading WordNet,
   * indexing the catalogue) are not reported as decision latency. Its result is discarded.
   */
  warmup?: boolean | undefined;
}

export interface ExtractionStats {
  count: number;
  failed: number;
  /** Extracted tasks that contain the record's original task verbatim. */
  containsOriginal: number;
  latencyMs: { p50: number; p99: number };
}

export interface EvalReport {
  dataset: string;
  matcher: string;
  extractor?: string | undefined;
  split: Split | 'all';
  metrics: Metrics;
  /** The same metrics on each part of the fixed split (present when `split` is `all`). */
  bySplit?: Record<Split, Metrics> | undefined;
  extraction?: ExtractionStats | undefined;
}

async function decideWithin(run: (signal: AbortSignal) => Promise<MatchDecision>, timeoutMs: number): Promise<MatchDecision> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<MatchDecision>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve('uncertain');
    }, timeoutMs);
  });
  try {
    return await Promise.race([run(controller.signal), timeout]);
  } catch {
    // A matcher that throws is treated as a fail-closed gate would: not allowed.
    return 'uncertain';
  } finally {
    clearTimeout(timer);
  }
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Runs a matcher (and, for conversations, an extractor) over a dataset and scores it. */
export async function runEval(dataset: Dataset, options: EvalOptions): Promise<EvalReport> {
  const split = options.split ?? 'all';
  const timeoutMs = options.timeoutMs ?? 30_000;
  const records = dataset.records.filter((r) => split === 'all' || r.split === split);
  const outcomes: (Outcome & { split: Split })[] = [];
  const extractMs: number[] = [];
  let failed = 0;
  let containsOriginal = 0;
  let conversations = 0;
  const first = records[0];
  if ((options.warmup ?? true) && first !== undefined) {
    await decideWithin(async (signal) => (await options.matcher.match({ task: first.task || 'warm up', tool: first.tool, catalogue: dataset.catalogue }, signal)).decision, timeoutMs);
  }
  for (const record of records) {
    let task = record.task;
    let offered: readonly string[] | undefined;
    if ('conversation' in record) {
      if (options.extractor === undefined) throw new Error(`dataset ${dataset.name} has conversations: an extractor is required`);
      conversations += 1;
      const started = performance.now();
      const extracted = await options.extractor.extract(record.conversation);
      extractMs.push(performance.now() - started);
      if (!extracted.ok) {
        failed += 1;
        outcomes.push({ class: record.class, decision: 'uncertain', ms: 0, split: record.split });
        continue;
      }
      if (record.task !== '' && squash(extracted.task).includes(squash(record.task))) containsOriginal += 1;
      task = extracted.task;
      offered = extracted.offered;
    }
    const started = performance.now();
    const decision = await decideWithin(
      async (signal) => (await options.matcher.match({ task, tool: record.tool, catalogue: dataset.catalogue, offered }, signal)).decision,
      timeoutMs,
    );
    outcomes.push({ class: record.class, decision, ms: performance.now() - started, split: record.split });
  }
  const sortedExtract = extractMs.sort((a, b) => a - b);
  return {
    dataset: dataset.name,
    matcher: options.matcher.id,
    extractor: conversations > 0 ? options.extractor?.id : undefined,
    split,
    metrics: computeMetrics(outcomes),
    bySplit:
      split === 'all'
        ? { tune: computeMetrics(outcomes.filter((o) => o.split === 'tune')), holdout: computeMetrics(outcomes.filter((o) => o.split === 'holdout')) }
        : undefined,
    extraction: conversations > 0 ? { count: conversations, failed, containsOriginal, latencyMs: { p50: percentile(sortedExtract, 50), p99: percentile(sortedExtract, 99) } } : undefined,
  };
}
