import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { browserTestsRun, closeAll, servePages, signedInContext } from '../testing/chromium.ts';
import { FIONA_PASSWORD, makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';

/** Outside the repository: screenshots for people to look at. */
const SCREENS = process.env.COUNTERSIGN_SCREENS_DIR;

let f: ServerFixture;
let pages: Awaited<ReturnType<typeof servePages>> | undefined;
let base: string;

/** What the audit table must hold without cutting: long ids, reasons in sentences, every event kind the fixture makes. */
async function seed() {
  for (let i = 0; i < 4; i++) {
    const { requestId } = await f.proposeTransfer({ amount: 5000 + i, to: `supplier-${i}` }, `call-${'x'.repeat(40)}-${i}`);
    await f.fiona('POST', '/api/v1/decisions', { requestId, decision: i % 2 === 0 ? 'approve' : 'deny', reason: 'Recipient is not a known supplier of ours in the vendor registry' });
  }
  await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'small-one', name: 'transfer', arguments: { amount: 5, to: 'alice' } }]));
  // Reason codes are one long word each (unclassified_tool): they must wrap after an underscore, not widen the table.
  await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'no-rule', name: 'unlisted_tool', arguments: { x: 1 } }]));
  await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'call_delete_repo', name: 'delete_repo', arguments: { repo: 'acme/legacy' } }]));
}

async function measure(page: Page) {
  return page.evaluate(() => {
    // No DOM types in this project's compiler settings: the few members used here, typed by hand.
    type Box = { scrollWidth: number; clientWidth: number };
    type Text = { textContent: string | null };
    type Rects = { getClientRects(): ArrayLike<{ top: number }> };
    const doc = (globalThis as unknown as {
      document: {
        querySelector(s: string): Box;
        documentElement: Box;
        createTreeWalker(root: Box, show: number): { nextNode(): Text | null };
        createRange(): Rects & { setStart(n: Text, o: number): void; setEnd(n: Text, o: number): void };
      };
    }).document;
    const wrap = doc.querySelector('.table-wrap');
    const table = doc.querySelector('table.audit');
    // A word split over two lines has two client rects.
    const split: string[] = [];
    const walker = doc.createTreeWalker(table, 4 /* NodeFilter.SHOW_TEXT */);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/\S+/g)) {
        const range = doc.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
        if (lines.size > 1) split.push(match[0]);
      }
    }
    return { tableWidth: table.scrollWidth, boxWidth: wrap.clientWidth, docWidth: doc.documentElement.scrollWidth, viewport: (globalThis as unknown as { innerWidth: number }).innerWidth, split: split.slice(0, 10) };
  });
}

describe.skipIf(!browserTestsRun)('the audit page fits the screen', () => {
  beforeAll(async () => {
    if (SCREENS !== undefined) mkdirSync(SCREENS, { recursive: true });
    f = makeServerFixture({ publicOrigin: undefined });
    pages = await servePages(f.app);
    base = pages.base;
    await seed();
  }, 60_000);
  afterAll(() => closeAll(f, pages));

  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    it(`${width} px: no column cut off, no word broken in the middle`, async () => {
      const context = await signedInContext(base, 'fiona', FIONA_PASSWORD, { viewport: { width, height } });
      onTestFinished(() => context.close());
      const page = await context.newPage();
      await page.goto(`${base}/audit`);
      if (SCREENS !== undefined) await page.screenshot({ path: `${SCREENS}/audit-${width}.png`, fullPage: true });
      const m = await measure(page);
      expect(m.tableWidth, 'the table is wider than its box: a column is cut off').toBeLessThanOrEqual(m.boxWidth);
      expect(m.docWidth).toBeLessThanOrEqual(m.viewport);
      expect(m.split, 'words broken across lines').toEqual([]);
    }, 60_000);
  }
});
