import { PassThrough } from 'node:stream';
import { requestView } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
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

describe('countersign approvals watch', () => {
  it('prints a request as it starts waiting, approves it by the id start typed, says when it closed; ends with its input', async () => {
    const url = await server.start();
    f = server.fixture();
    const stdin = new PassThrough();
    const captured = captureIo({ cwd: process.cwd(), env: { [APPROVER_TOKEN_ENV]: FIONA_TOKEN, COUNTERSIGN_URL: url } });
    const running = runCli(['approvals', 'watch', '--interval', '100'], { ...captured.io, stdin });
    await until(() => captured.stdout().includes('watching'));

    const { requestId } = await f.proposeTransfer({ amount: 900, to: 'alice' });
    await until(() => captured.stdout().includes('{"amount":900,"to":"alice"}'));
    const line = captured.stdout().split('\n').find((l) => l.includes('"amount":900'))!;
    const shown = line.slice(3).split(' ')[0]!;
    expect(requestId.startsWith(shown)).toBe(true);
    expect(captured.stdout()).toMatch(/ {3}ID +TOOL +PRINCIPAL +APPR +EXPIRES +ARGUMENTS\n/);

    stdin.write(`approve ${shown}\n`);
    await until(() => captured.stdout().includes(`approved ${requestId} (transfer)`));
    expect(captured.stdout()).toContain('  arguments  {"amount":900,"to":"alice"}');
    expect((await requestView(f.gate, requestId))?.status).toBe('approved');
    await until(() => captured.stdout().includes(`${shown} is no longer waiting for you`));

    stdin.write('bogus\n');
    await until(() => captured.stderr().includes('type "approve ID"'));
    stdin.end();
    expect(await running).toBe(0);
  }, 20_000);
});
