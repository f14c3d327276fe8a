import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../ops/logger.ts';
import { ServerMetrics } from '../ops/metrics.ts';
import { sample } from '../ops/testing/prometheus-sample.ts';
import { makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';

let f: ServerFixture | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  await f?.close();
  await new Promise<void>((resolve) => (receiver?.listening === true ? receiver.close(() => resolve()) : resolve()));
});

/** A port nothing listens on yet: the receiver is down (connection refused) until `up()`. */
async function downReceiver() {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  let received = 0;
  return {
    url: `http://127.0.0.1:${port}/hooks/secret-path-token`,
    received: () => received,
    up: async () => {
      receiver = createServer((req, res) => {
        req.resume().on('end', () => {
          received++;
          res.writeHead(200).end('ok');
        });
      });
      await new Promise<void>((resolve) => receiver!.listen(port, '127.0.0.1', resolve));
    },
  };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('webhook delivery health', () => {
  it('receiver down: one warning and the failed counter moves; back up: a recovery line and the delivered counter moves', async () => {
    const target = await downReceiver();
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ write: (chunk: string) => lines.push(JSON.parse(chunk) as Record<string, unknown>) }, 'info');
    const metrics = new ServerMetrics();
    f = makeServerFixture({ logger, metrics: { collector: metrics }, webhook: { url: target.url, secret: 'whsec-health-test', maxAttempts: 2, baseDelayMs: 5 } });
    const count = async (outcome: string) => sample(await metrics.registry.metrics(), 'countersign_webhook_deliveries_total', `format="countersign",outcome="${outcome}"`) ?? 0;
    const webhookLines = () => lines.filter((l) => typeof l.event === 'string' && l.event.startsWith('webhook_'));

    // Down: two requests, two lost events, one warning (not one per event).
    await f.proposeTransfer({ amount: 5001, to: 'alice' }, 'call-1');
    await f.proposeTransfer({ amount: 5002, to: 'alice' }, 'call-2');
    await until(async () => (await count('failed')) === 2);
    expect(webhookLines()).toEqual([
      expect.objectContaining({ level: 'warn', event: 'webhook_failing', receiver: new URL(target.url).origin, format: 'countersign', attempts: 2, lastStatus: null }),
    ]);
    // The receiver's path (a secret for Slack incoming webhooks) is never logged.
    expect(JSON.stringify(lines)).not.toContain('secret-path-token');

    // Up again: the next event is delivered and the recovery is logged with what was lost.
    await target.up();
    await f.proposeTransfer({ amount: 5003, to: 'alice' }, 'call-3');
    await until(async () => (await count('delivered')) === 1);
    expect(target.received()).toBe(1);
    expect(webhookLines()).toEqual([
      expect.objectContaining({ event: 'webhook_failing' }),
      expect.objectContaining({ level: 'info', event: 'webhook_recovered', lost: 2, msg: expect.stringContaining('recovered; 2 events were not delivered') }),
    ]);
    expect(await count('failed')).toBe(2);
  });
});
