import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, type ServerFixture } from '../../testing/server-fixture.ts';
import type { ApprovalView } from '../../views/request-views.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

describe('POST /proposals: the agent context of a call', () => {
  it('reaches the approver and agent views byte for byte, flagged where it hides characters', async () => {
    f = makeServerFixture();
    const context = 'Refund for order 7\u202E, as the user asked.';
    const res = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'c1', name: 'transfer', arguments: { amount: 500, to: 'alice' }, context }]));
    const outcome = ((await res.json()) as { outcomes: Array<{ requestId: string }> }).outcomes[0]!;
    for (const view of [
      (await (await f.fiona('GET', `/api/v1/approvals/${outcome.requestId}`)).json()) as ApprovalView,
      (await (await f.agent('GET', `/api/v1/requests/${outcome.requestId}`)).json()) as ApprovalView,
    ]) {
      expect(view.call.context).toBe(context);
      expect(view.display.findings.map((x) => [x.pointer, x.kind])).toEqual([['/context', 'bidi_control']]);
      expect(view.ruleId).toBe('transfers');
    }
  });

  it('refuses an over-long or non-string context with 400 before anything is recorded', async () => {
    f = makeServerFixture();
    for (const context of ['x'.repeat(2001), 7]) {
      const res = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'c2', name: 'transfer', arguments: { amount: 500 }, context } as never]));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
    expect(await f.ledger.findProposalByCall('run-1', 'c2')).toBeUndefined();
  });
});
