import { median } from './stats.ts';

/** One printed row: a measured figure, or the reason it was not measured. */
export interface Row {
  section: string;
  name: string;
  value?: number | undefined;
  unit: string;
  /** Per-round samples behind a median, for the JSON file. */
  samples?: number[] | undefined;
  note?: string | undefined;
  skipped?: string | undefined;
}

/** A headline figure compared with the target (none = informational). */
export interface Ratio {
  label: string;
  value: number | undefined;
  /** The target: the figure should be at least this (at most, with `atMost`). */
  target?: number | undefined;
  /** The target is an upper bound (latencies). */
  atMost?: boolean | undefined;
  /** How the value is shown: a ratio (×), a rate, milliseconds, or a count per operation. */
  kind: 'ratio' | 'rate' | 'ms' | 'count';
  /** Why a value is missing. */
  skipped?: string | undefined;
  /**
   * The figure is a floor's (a baseline doing only the work no implementation can skip): a
   * missed target then reads as out of reach on this machine, not as a shortfall of ours.
   */
  floor?: boolean | undefined;
}

export function formatRate(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function formatRatio(value: number): string {
  return `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`;
}

/** Aligned table of one section's rows. */
export function printSection(title: string, rows: readonly Row[]): void {
  console.log(`\n## ${title}`);
  const nameWidth = Math.max(...rows.map((r) => r.name.length));
  const cells = rows.map((r) => (r.value === undefined ? `skipped: ${r.skipped ?? 'not measured'}` : `${formatRate(r.value)} ${r.unit}`));
  const valueWidth = Math.max(...cells.map((c, i) => (rows[i]!.value === undefined ? 0 : c.length)));
  rows.forEach((r, i) => {
    const cell = cells[i]!;
    console.log(`  ${r.name.padEnd(nameWidth)}  ${r.value === undefined ? cell : cell.padStart(valueWidth)}`);
  });
}

export function printNotes(rows: readonly Row[]): void {
  for (const r of rows) if (r.note !== undefined) console.log(`    ${r.name}: ${r.note}`);
}

export function formatMs(value: number): string {
  return `${value >= 10 ? value.toFixed(1) : value.toFixed(2)} ms`;
}

function formatAs(kind: Ratio['kind'], value: number): string {
  if (kind === 'ratio') return formatRatio(value);
  if (kind === 'ms') return formatMs(value);
  if (kind === 'count') return value.toFixed(2);
  return `${formatRate(value)}/s`;
}

/** The figure, and how it compares with its target: information for the reader, never a failure. */
export function verdict(r: Ratio): string {
  if (r.value === undefined) return `skipped: ${r.skipped ?? 'not measured'}`;
  const shown = formatAs(r.kind, r.value);
  if (r.target === undefined) return shown;
  const met = r.atMost === true ? r.value <= r.target : r.value >= r.target;
  const outcome = r.floor === true ? (met ? 'the floor reaches it' : 'the floor itself misses it: out of reach on this machine now') : met ? 'met' : 'not met';
  return `${shown}  (target ${r.atMost === true ? '≤' : '≥'} ${formatAs(r.kind, r.target)}: ${outcome})`;
}

export function printRatios(title: string, ratios: readonly Ratio[]): void {
  console.log(`\n## ${title}`);
  const width = Math.max(...ratios.map((r) => r.label.length));
  for (const r of ratios) console.log(`  ${r.label.padEnd(width)}  ${verdict(r)}`);
}

/**
 * a / b when both rows were measured. Rows timed in the same rounds are compared
 * round by round (median of the per-round ratios), so a burst of load from other
 * processes skews both sides of a ratio rather than one.
 */
export function ratioOf(a: Row | undefined, b: Row | undefined): number | undefined {
  if (a?.value === undefined || b?.value === undefined || b.value === 0) return undefined;
  const [x, y] = [a.samples, b.samples];
  if (x === undefined || y === undefined || x.length !== y.length || x.length === 0) return a.value / b.value;
  return median(x.map((v, i) => v / y[i]!));
}
