import { describe, expect, it } from 'vitest';
import { browserTestsRun, closeAll, sharedChromium, servePages, submitLogin } from '../testing/chromium.ts';
import { FIONA_PASSWORD, makeServerFixture } from '../testing/server-fixture.ts';

const SCREENS = process.env.COUNTERSIGN_SCREENS_DIR;

/** `2026-06-01 21:00:00` for an ISO instant shifted by `hours`: the viewer's wall clock. */
function wallClock(iso: string, hours: number): string {
  return new Date(Date.parse(iso) + hours * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

describe.skipIf(!browserTestsRun)('times on the pages: the viewer’s time zone, UTC on hover, UTC without JavaScript', () => {
  it('a request page in Tokyo shows Tokyo time with the UTC text in the title; without JavaScript the UTC text stays', async () => {
    const f = makeServerFixture({ publicOrigin: undefined });
    const served = await servePages(f.app);
    try {
      const { requestId } = await f.proposeTransfer();
      for (const javaScriptEnabled of [true, false]) {
        const context = await (await sharedChromium()).newContext({ timezoneId: 'Asia/Tokyo', viewport: { width: 390, height: 844 }, javaScriptEnabled });
        try {
          const page = await context.newPage();
          await page.goto(`${served.base}/requests/${requestId}`);
          await submitLogin(page, 'fiona', FIONA_PASSWORD, `${served.base}/requests/${requestId}`);
          const times = page.locator('main time[datetime]');
          expect(await times.count()).toBeGreaterThanOrEqual(2);
          for (const time of await times.all()) {
            const iso = (await time.getAttribute('datetime'))!;
            const utc = `${wallClock(iso, 0)} UTC`;
            expect(await time.getAttribute('title')).toBe(utc);
            expect(await time.textContent()).toBe(javaScriptEnabled ? `${wallClock(iso, 9)} GMT+9` : utc);
          }
          // Screenshots only when asked for (COUNTERSIGN_SCREENS_DIR), like the other browser tests.
          if (javaScriptEnabled && SCREENS !== undefined) {
            await page.screenshot({ path: `${SCREENS}/request-local-time-390.png`, fullPage: false });
            await page.setViewportSize({ width: 1280, height: 800 });
            await page.screenshot({ path: `${SCREENS}/request-local-time-1280.png`, fullPage: false });
          }
        } finally {
          await context.close();
        }
      }
    } finally {
      await closeAll(f, served);
    }
  }, 60_000);
});
