import { readFileSync } from 'node:fs';

/**
 * The suite's closing line in the plain form CI tools read ("N passed, N failed"), from the
 * JSON report vitest writes next to its normal output; null when no test ran or the report
 * is missing (vitest did not start, or stopped before writing it).
 */
export function closingLine(reportPath: string): string | null {
  let report: unknown;
  try {
    report = JSON.parse(readFileSync(reportPath, 'utf8'));
  } catch {
    return null;
  }
  const count = (key: string) => {
    const value = typeof report === 'object' && report !== null ? (report as Record<string, unknown>)[key] : undefined;
    return typeof value === 'number' ? value : Number.NaN;
  };
  const [total, passed, failed, skipped] = [count('numTotalTests'), count('numPassedTests'), count('numFailedTests'), count('numPendingTests') + count('numTodoTests')];
  if (![total, passed, failed, skipped].every(Number.isInteger) || total === 0) return null;
  return `tests: ${passed} passed, ${failed} failed, ${skipped} skipped`;
}
