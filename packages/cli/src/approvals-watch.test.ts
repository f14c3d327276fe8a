import { PassThrough } from 'node:stream';
import { requestView } from '@countersign/core/testing';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FIONA_TOKEN, type ServerFixture } from '@countersign/server/test-kit';
import { APPROVER_TOKEN_ENV } from './approver-http.ts';
import { runCli } from './run-cli.ts';
import { captureIo } from './testing/capture-io.ts';
import { liveFixturePerTest } from './testing/live-fixture.ts';

let f: ServerFixture;
const server = liveFixturePerTest();

async function until(condition: () => boolean, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** Counts the CLI's reads of the pending list (it runs in this process, on this fetch). */
function countListReads(): () => number {
  const fetch = globalThis.fetch;
  let reads = 0;
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    if (String(input instanceof Request ? input.url : input).includes('/api/v1/approvals?status=pending')) reads++;
    return fetch(input, init);
  });
  return () => reads;
}

describe('countersign approvals watch', () => {
  it('a request proposed after watch starts appears from the live stream (no re-reading on a timer); approve by the id start typed; says how it closed', async () => {
    const url = await server.start();
    f = server.fixture();
    const listReads = countListReads();
    const stdin = new PassThrough();
    const captured = captureIo({ cwd: process.cwd(), env: { [APPROVER_TOKEN_ENV]: FIONA_TOKEN, COUNTERSIGN_URL: url } });
    const running = runCli(['approvals', 'watch'], { ...captured.io, stdin });
    await until(() => captured.stdout().includes('watching'));
    // Idle: the list was read once and is not re-read while nothing changes (the old watch polled every 2 s).
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(listReads()).toBe(1);

    const { requestId } = await f.proposeTransfer({ amount: 900, to: 'alice' });
    await until(() => captured.stdout().includes('{"amount":900,"to":"alice"}'), 3000);
    expect(listReads()).toBe(2);
    const line = captured.stdout().split('\n').find((l) => l.includes('"amount":900'))!;
    const shown = line.slice(3).split(' ')[0]!;
    expect(requestId.startsWith(shown)).toBe(true);
    expect(captured.stdout()).toMatch(/ {3}ID +TOOL +PRINCIPAL +APPR +EXPIRES +ARGUMENTS\n/);

    stdin.write(`approve ${shown}\n`);
    await until(() => captured.stdout().includes(`  request    ${requestId}\n`));
    expect(captured.stdout()).toContain('  arguments  {"amount":900,"to":"alice"}');
    expect((await requestView(f.gate, requestId))?.status).toBe('approved');
    await until(() => captured.stdout().includes(`${shown} approved by `));
    expect(captured.stdout()).toMatch(new RegExp(` {3}${shown} approved by \\S+ \\(transfer\\); no longer waiting for you`));

    stdin.write('bogus\n');
    await until(() => captured.stderr().includes('type "approve ID"'));
    stdin.end();
    expect(await running).toBe(0);
  }, 20_000);
});

describe('countersign approvals watch, when the stream drops', () => {
  it('says so once, reconnects with backoff, says when it is back, and reads the list only after a change', async () => {
    let streams = 0;
    let listReads = 0;
    const fake = createServer((req, res) => {
      if (req.url?.startsWith('/events/approvals')) {
        streams++;
        // The first two connections drop at once; the third sends one change and stays open.
        if (streams <= 2) return res.destroy();
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (streams === 3) res.end('event: changed\ndata: v1\n\n');
        return;
      }
      if (req.url?.startsWith('/api/v1/approvals?status=pending')) listReads++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ approvals: [] }));
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    try {
      const stdin = new PassThrough();
      const captured = captureIo({ cwd: process.cwd(), env: { [APPROVER_TOKEN_ENV]: FIONA_TOKEN, COUNTERSIGN_URL: url } });
      const running = runCli(['approvals', 'watch'], { ...captured.io, stdin });
      await until(() => captured.stdout().includes('watching') && streams >= 4);
      expect(captured.stderr().match(/live stream lost/g)).toHaveLength(1);
      expect(captured.stderr()).toContain('live stream back');
      expect(listReads).toBe(1);
      stdin.end();
      expect(await running).toBe(0);
    } finally {
      fake.closeAllConnections();
      await new Promise((resolve) => fake.close(resolve));
    }
  }, 20_000);
});

describe('countersign approvals watch, when the stream goes silent', () => {
  it('a stream that stops sending (headers, one heartbeat, then nothing) or never answers is dropped after --idle-timeout, said once, and reconnected', async () => {
    let streams = 0;
    const held: ServerResponse[] = [];
    const fake = createServer((req, res) => {
      if (req.url?.startsWith('/events/approvals')) {
        streams++;
        held.push(res);
        // 1: the first read. 2: alive once, then silent like a server gone behind a proxy that keeps
        // the socket. 3: never even answers. 4 and on: alive again (one heartbeat).
        if (streams === 1) return res.writeHead(200, { 'content-type': 'text/event-stream' }).end('event: changed\ndata: v1\n\n');
        if (streams === 3) return;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': heartbeat\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ approvals: [] }));
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    try {
      const stdin = new PassThrough();
      const captured = captureIo({ cwd: process.cwd(), env: { [APPROVER_TOKEN_ENV]: FIONA_TOKEN, COUNTERSIGN_URL: url } });
      const running = runCli(['approvals', 'watch', '--idle-timeout', '0.3'], { ...captured.io, stdin });
      await until(() => streams >= 4 && captured.stderr().includes('live stream back'));
      // Connections 2 and 3 are one outage: said once, naming the silence; then back at connection 4's heartbeat.
      expect(captured.stderr().match(/live stream silent: nothing from http:\/\/127\.0\.0\.1:\d+ for 0\.3 s \(not even its heartbeat\); reconnecting…/g)).toHaveLength(1);
      expect(captured.stderr()).not.toContain('live stream lost');
      expect(captured.stderr().indexOf('silent')).toBeLessThan(captured.stderr().indexOf('back'));
      stdin.end();
      expect(await running).toBe(0);
      expect(await runCli(['approvals', 'watch', '--idle-timeout', '0'], captureIo({ cwd: process.cwd(), env: { [APPROVER_TOKEN_ENV]: FIONA_TOKEN, COUNTERSIGN_URL: url } }).io)).toBe(2);
    } finally {
      for (const res of held) res.destroy();
      fake.closeAllConnections();
      await new Promise((resolve) => fake.close(resolve));
    }
  }, 20_000);
});

describe('countersign approvals watch, ids', () => {
  it('lines printed apart stay aligned, and a request whose id start a newcomer made ambiguous is shown again with a longer one', async () => {
    const url = await server.start();
    f = server.fixture();
    const stdin = new PassThrough();
    const captured = captureIo({ cwd: process.cwd(), env: { [APPROVER_TOKEN_ENV]: FIONA_TOKEN, COUNTERSIGN_URL: url } });
    const running = runCli(['approvals', 'watch'], { ...captured.io, stdin });
    await until(() => captured.stdout().includes('watching'));
    await f.proposeTransfer({ amount: 901, to: 'alice' }, 'call-a');
    await until(() => captured.stdout().includes('"amount":901'));
    await f.proposeTransfer({ amount: 902, to: 'alice' }, 'call-b');
    await until(() => captured.stdout().includes('"amount":902'));
    const lines = captured.stdout().split('\n').filter((l) => l.includes('transfer'));
    const header = captured.stdout().split('\n').find((l) => l.includes('TOOL'))!;
    for (const line of lines) expect(line.indexOf('transfer')).toBe(header.indexOf('TOOL'));
    // Every id start printed last for a request is unique among the ones waiting.
    const latest = new Map<string, string>();
    // By the arguments, not a bare '901': a random id start can hold those digits too.
    for (const line of lines) latest.set(line.includes('"amount":901') ? 'a' : 'b', line.slice(3).split(' ')[0]!);
    expect(latest.get('a')!.startsWith(latest.get('b')!) || latest.get('b')!.startsWith(latest.get('a')!)).toBe(false);
    stdin.end();
    expect(await running).toBe(0);
  }, 20_000);
});
