// Prints the suite's closing line in the plain form CI tools read ("N passed, N failed"),
// from the JSON report vitest wrote next to its normal output.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync('test-results/vitest.json', 'utf8'));
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
if (report.numTotalTests === 0) {
  console.error('no test ran');
  process.exit(1);
}
