import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** The system Chromium the browser tests drive (scripts/ensure-services.sh installs it). */
export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
/** In CI a missing Chromium fails the browser tests instead of skipping them. */
export const browserTestsRun = chromiumAvailable || (process.env.CI !== undefined && process.env.CI !== '');

export function launchChromium(): Promise<Browser> {
  if (!chromiumAvailable) throw new Error(`${CHROMIUM} is required in CI for the browser tests`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Fills and submits the sign-in form the page is on, then waits for `landing` (a URL). */
export async function submitLogin(page: Page, username: string, password: string, landing: string): Promise<void> {
  await page.getByLabel('Approver id').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(landing);
}
