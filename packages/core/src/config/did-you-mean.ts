/**
 * The known key closest to a misspelled one (`aproval` → `approval`), or undefined when
 * none is close: at most one edit per four characters (at least one), so a wholly
 * unrelated key gets no suggestion rather than a misleading one. Ties go to the first.
 */
export function closestKey(key: string, known: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(key.length / 4));
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    if (candidate === key) continue;
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
}

/**
 * Edits (insert, delete, substitute, swap two neighbours) between `a` and `b`: the
 * optimal-string-alignment distance. Keys are short (bounded below), so the quadratic
 * table is cheap.
 */
export function editDistance(a: string, b: string): number {
  // A key longer than any real one is not a misspelling worth the work.
  if (a.length > 64 || b.length > 64) return Number.POSITIVE_INFINITY;
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i]!;
      const above = rows[i - 1]!;
      row[j] = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}
