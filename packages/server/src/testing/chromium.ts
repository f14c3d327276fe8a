import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
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

/** The fixture's app on a real port on 127.0.0.1, for a browser to load; `close` stops it. */
export async function servePages(app: { fetch: (request: Request) => Response | Promise<Response> }): Promise<{ base: string; close(): Promise<void> }> {
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Closes what a browser test opened, whichever of it was opened before a failure. */
export async function closeAll(...things: Array<{ close(): Promise<unknown> } | undefined>): Promise<void> {
  for (const thing of things) await thing?.close();
}
