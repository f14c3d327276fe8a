import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core';

/** The system Chromium the browser tests drive (scripts/ensure-services.sh installs it); COUNTERSIGN_CHROMIUM names another binary. */
export const CHROMIUM = process.env.COUNTERSIGN_CHROMIUM ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
/** In CI a missing Chromium fails the browser tests instead of skipping them. */
export const browserTestsRun = chromiumAvailable || (process.env.CI !== undefined && process.env.CI !== '');
if (!browserTestsRun) console.warn(`skipping the browser tests: ${CHROMIUM} not found (scripts/ensure-services.sh installs it)`);

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // WebAuthn needs a secure context, which http://localhost is and http://127.0.0.1 is not as
  // an RP id: the passkey tests load the pages as localhost, on servers bound to 127.0.0.1.
  '--host-resolver-rules=MAP localhost 127.0.0.1',
];

let shared: Promise<Browser> | undefined;
let exitOnSigterm = false;

/**
 * One Chromium for every browser test file a worker process runs: the browser files share a
 * module graph per worker (isolate: false in vitest.config.ts), so this module, and the browser,
 * outlive each file. Starting Chromium was a large part of a short file's processor time.
 * A test isolates itself with its own BrowserContext (cookies, storage, permissions) and
 * closes it; a file never closes the browser. Playwright kills it when the worker exits,
 * and a browser that crashed or disconnected is replaced on the next call.
 */
export function sharedChromium(): Promise<Browser> {
  if (!chromiumAvailable) return Promise.reject(new Error(`${CHROMIUM} is required in CI for the browser tests`));
  if (shared === undefined) {
    const launching = chromium.launch({ executablePath: CHROMIUM, args: ARGS, handleSIGTERM: false });
    // Vitest stops a worker with SIGTERM and kills it 500 ms later. Playwright's own SIGTERM
    // handler closes the browser gracefully, which on a loaded machine takes longer and then
    // leaves the browser's profile folder in the temp dir; exiting at once runs Playwright's
    // exit handler instead, which kills the browser and deletes the folder synchronously.
    if (!exitOnSigterm) {
      exitOnSigterm = true;
      process.once('SIGTERM', () => process.exit(143));
    }
    shared = launching;
    launching.then(
      (browser) =>
        browser.on('disconnected', () => {
          if (shared === launching) shared = undefined;
        }),
      () => {
        if (shared === launching) shared = undefined;
      },
    );
  }
  return shared;
}

/**
 * Signs `context` in as `username`: the sign-in form is posted by the context's own request
 * client, so the server's session cookie lands in the context's cookie jar as a sign-in in a
 * page would leave it, without loading the sign-in page and the list it leads to (a large part
 * of a short browser test's processor time, bench/NOTES.md). For tests where signing in is a
 * step, not what is tested; the form itself is still driven in a page by browser.test.ts (the cross-site test),
 * live-list.test.ts, local-time-browser.test.ts and passkey-browser.test.ts.
 */
export async function signInByRequest(context: BrowserContext, base: string, username: string, password: string): Promise<void> {
  const signIn = await context.request.post(`${base}/login`, { form: { username, password }, headers: { origin: base }, maxRedirects: 0 });
  if (signIn.status() !== 303) throw new Error(`signing in as ${username} answered ${signIn.status()}: ${await signIn.text()}`);
}

/** A new context on the shared browser, signed in as `username` (signInByRequest); the caller closes it. */
export async function signedInContext(base: string, username: string, password: string, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await (await sharedChromium()).newContext(options);
  try {
    await signInByRequest(context, base, username, password);
  } catch (error) {
    await context.close();
    throw error;
  }
  return context;
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
