import type { LedgerStore } from '@countersign/core/ledger';
import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';
import { ServerMetrics } from './metrics.ts';
import { countPendingRequests } from './pending-requests.ts';
import { sample } from './testing/prometheus-sample.ts';

let f: ServerFixture | undefined;
afterEach(async () => {
  await f?.close();
});

async function scrape(fixture: ServerFixture): Promise<number | undefined> {
  const res = await fixture.send('GET', '/metrics', undefined);
  expect(res.status).toBe(200);
  return sample(await res.text(), 'countersign_pending_requests');
}

describe('countersign_pending_requests', () => {
  it('is read from the store on each scrape: opened, decided and expired requests move it', async () => {
    const metrics = new ServerMetrics();
    f = makeServerFixture({ metrics: { collector: metrics } });
    expect(await scrape(f)).toBe(0);
    const first = await f.proposeTransfer({ amount: 500, to: 'alice' }, 'call-1');
    await f.proposeTransfer({ amount: 600, to: 'alice' }, 'call-2');
    expect(await scrape(f)).toBe(2);
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId: first.requestId, decision: 'deny', reason: 'no' })).status).toBe(200);
    expect(await scrape(f)).toBe(1);
    // Past its deadline a request no longer waits, though nothing was written.
    f.clock.advance(24 * 3600 * 1000);
    expect(await scrape(f)).toBe(0);
  });

  it('reads one bounded page: a backlog beyond the limit reads as the limit, never the whole table', async () => {
    f = makeServerFixture();
    for (const id of ['c1', 'c2', 'c3']) await f.proposeTransfer({ amount: 500, to: 'alice' }, id);
    const limits: (number | undefined)[] = [];
    const ledger = f.ledger;
    const list = ledger.listApprovalRequests.bind(ledger);
    (ledger as { listApprovalRequests: LedgerStore['listApprovalRequests'] }).listApprovalRequests = (filter, now) => {
      limits.push(filter.limit);
      return list(filter, now);
    };
    expect(await countPendingRequests(f.gate, 1000, 2)).toBe(2);
    expect(await countPendingRequests(f.gate, 1000, 10)).toBe(3);
    expect(limits).toEqual([2, 10]);
  });

  it('a store that does not answer in time gives no value rather than a hung scrape', async () => {
    f = makeServerFixture();
    const ledger = f.ledger as { listApprovalRequests: LedgerStore['listApprovalRequests'] };
    ledger.listApprovalRequests = () => new Promise(() => undefined);
    expect(await countPendingRequests(f.gate, 20)).toBeUndefined();
    ledger.listApprovalRequests = () => Promise.reject(new Error('connection refused'));
    expect(await countPendingRequests(f.gate, 1000)).toBeUndefined();
  });
});
