import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { apiReports } from './api-report.test-helper.ts';

// Core's public surface changes only on purpose: each entry point's exported names and
// kinds are committed under packages/core/api/, and this test fails when the sources
// export something else. After a deliberate change: `npm run api-report -w @countersign/core`.
const apiDir = fileURLToPath(new URL('../api/', import.meta.url));
const update = process.env.UPDATE_API_REPORT === '1';

describe('API report per entry point', () => {
  const reports = apiReports();

  if (update) {
    mkdirSync(apiDir, { recursive: true });
    for (const [entry, text] of reports) writeFileSync(`${apiDir}${entry}.txt`, text);
  }

  it('every entry point has a committed report, and no report outlives its entry point', () => {
    const committed = existsSync(apiDir) ? readdirSync(apiDir).filter((name) => name.endsWith('.txt')) : [];
    expect(committed.sort()).toEqual([...reports.keys()].map((entry) => `${entry}.txt`).sort());
  });

  for (const [entry, text] of reports) {
    it(`${entry}: the exports match api/${entry}.txt`, () => {
      const path = `${apiDir}${entry}.txt`;
      expect(existsSync(path) ? readFileSync(path, 'utf8') : '(no report)').toBe(text);
    });
  }
});
