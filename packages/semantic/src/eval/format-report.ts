import type { MatchClass } from './casa.ts';
import type { Metrics } from './metrics.ts';
import type { EvalReport } from './run-eval.ts';

const f3 = (n: number) => n.toFixed(3);
const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
const ms = (n: number) => `${n.toFixed(3)} ms`;

function metricsRow(label: string, m: Metrics): string {
  return `| ${label} | ${m.count} | ${f3(m.accuracy)} | ${f3(m.f1)} | ${pct(m.falsePositiveRate)} | ${pct(m.falseNegativeRate)} | ${ms(m.latencyMs.p50)} | ${ms(m.latencyMs.p99)} |`;
}

/** The report as Markdown: a metrics table per split part, then the per-class confusion. */
export function formatReport(report: EvalReport): string {
  const lines = [
    `dataset ${report.dataset} · matcher ${report.matcher}${report.extractor ? ` · extractor ${report.extractor}` : ''} · split ${report.split}`,
    '',
    '| part | n | accuracy | F1 | FPR (unrelated allowed) | FNR (legitimate denied) | p50 | p99 |',
    '|---|---|---|---|---|---|---|---|',
  ];
  if (report.bySplit) {
    lines.push(metricsRow('tune', report.bySplit.tune), metricsRow('holdout', report.bySplit.holdout));
  }
  lines.push(metricsRow(report.split, report.metrics), '', '| class | match | mismatch | uncertain |', '|---|---|---|---|');
  for (const cls of ['correct', 'wrong', 'null'] as MatchClass[]) {
    const c = report.metrics.confusion[cls];
    lines.push(`| ${cls} | ${c.match} | ${c.mismatch} | ${c.uncertain} |`);
  }
  const m = report.metrics;
  lines.push(
    '',
    `to a person (uncertain): ${m.uncertain} of ${m.count} (correct ${m.confusion.correct.uncertain}, wrong ${m.confusion.wrong.uncertain}, null ${m.confusion.null.uncertain}); FNR with uncertain counted apart ${pct(m.decidedFalseNegativeRate)}`,
  );
  if (report.extraction) {
    const e = report.extraction;
    lines.push(
      '',
      `extraction: ${e.count} conversations, ${e.failed} failed, ${e.containsOriginal} contain the original task verbatim; p50 ${ms(e.latencyMs.p50)}, p99 ${ms(e.latencyMs.p99)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
