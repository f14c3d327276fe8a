import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCaptured } from './testing/capture-io.ts';
import { serveInProcess } from './testing/serve-in-process.ts';

const cwd = mkdtempSync(join(tmpdir(), 'countersign-log-level-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

it('--log-level without --json keeps the text on stdout and writes the JSON log to stderr', async () => {
  const server = await serveInProcess(['--log-level', 'info'], { cwd });
  try {
    expect((await fetch(new URL('/healthz', server.url), { headers: { 'x-request-id': 'probe-1' } })).status).toBe(200);
    expect(server.stdout()).toMatch(/^countersign listening on http/m);
    expect(server.stdout()).not.toContain('"event"');
    const line = server
      .stderr()
      .trim()
      .split('\n')
      // Text warnings (\`warning: …\`) share stderr with the JSON lines.
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .find((l) => l.reqId === 'probe-1');
    expect(line).toMatchObject({ level: 'info', event: 'request', path: '/healthz', status: 200 });
  } finally {
    await server.stop();
  }
});

it('refuses an unknown --log-level', async () => {
  const run = await runCaptured(['serve', '--port', '0', '--log-level', 'loud'], { cwd });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('--log-level must be one of');
});
