import { describe, expect, it } from 'vitest';
import type { ProposeOutcome } from '../../gate/common/outcomes.ts';
import type { KitAgent } from './fixtures.ts';
import type { KitCall, KitContext } from './kit-context.ts';

/**
 * Propose-and-authorize (`authorizeAllowed`): an allowed call recorded already authorized
 * in one write. Attacked as the consume it replaces: it must never grant a call policy
 * sends to a person or denies, grant one call twice (replay, concurrent proposals, a
 * second authorize), or let a grant's arguments drift from the ledger's.
 */
export function describeOneCommitAttacks(kit: KitContext): void {
  describe('propose-and-authorize (one commit)', () => {
    async function proposeAuthorizing(call: KitCall, agent: KitAgent = 'a'): Promise<ProposeOutcome> {
      const outcomes = await kit.port(agent).propose({
        runId: call.runId,
        sessionId: call.sessionId,
        principal: call.principal,
        toolCalls: [{ id: call.callId, name: call.toolName, arguments: call.arguments }],
        authorizeAllowed: true,
      });
      expect(outcomes).toHaveLength(1);
      return outcomes[0]!;
    }

    function readCall(): KitCall {
      return kit.call({ toolName: 'kit_read', arguments: { path: '/notes.txt' } });
    }

    it('an allowed call comes back with its grant, reads dispatched, completes once and is never authorized again', async () => {
      const call = readCall();
      const outcome = await proposeAuthorizing(call);
      if (outcome.status !== 'allowed' || outcome.grant === undefined) throw new Error(`expected allowed with a grant, got ${JSON.stringify(outcome)}`);
      const { grant } = outcome;
      expect(grant).toMatchObject({ v: 1, proposalId: outcome.proposalId, toolName: 'kit_read', canonicalArgs: '{"path":"/notes.txt"}', callId: call.callId });
      expect(grant.requestId).toBeUndefined();
      expect(await kit.port().callStatus(grant.proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
      // The consume happened: a second authorize (replay of the spent call) is refused.
      expect(await kit.run(kit.request(call, grant.proposalId))).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
      // Proposing it again answers the recorded call, without a second grant.
      const again = await proposeAuthorizing(call);
      expect(again).toMatchObject({ status: 'allowed', proposalId: grant.proposalId });
      expect(again.status === 'allowed' && again.grant).toBeFalsy();
      expect(await kit.complete(JSON.parse(JSON.stringify(grant)))).toMatchObject({ ok: true, duplicate: false });
      expect(await kit.port().callStatus(grant.proposalId)).toMatchObject({ ok: true, call: { state: 'succeeded' } });
      expect(kit.runsOf(grant.proposalId)).toBe(0);
      const records = await kit.adapter.auditRecords?.();
      if (records !== undefined) {
        // The consume is in the trail as authorize writes it (the proposal record, then dispatch), then the refused replay, then the result.
        const types = records.filter((r) => r.proposalId === grant.proposalId).map((r) => r.type);
        expect(types).toEqual(['proposal', 'dispatch', 'rejection', 'result']);
      }
    });

    it('a call policy sends to a person or denies never yields a grant this way (flip)', async () => {
      const transfer = kit.call();
      const waiting = await proposeAuthorizing(transfer);
      expect(waiting).toMatchObject({ status: 'approval_required' });
      expect('grant' in waiting).toBe(false);
      expect(await kit.port().callStatus((waiting as { proposalId: string }).proposalId)).toMatchObject({ ok: true, call: { state: 'proposed' } });
      const denied = await proposeAuthorizing(kit.call({ toolName: 'kit_delete', arguments: { repo: 'prod' } }));
      expect(denied).toMatchObject({ status: 'denied' });
      expect('grant' in denied).toBe(false);
      const unknown = await proposeAuthorizing(kit.call({ toolName: 'kit_no_such_tool', arguments: {} }));
      expect(unknown.status === 'allowed' && unknown.grant !== undefined).toBe(false);
    });

    it('of concurrent proposals of one allowed call, exactly one gets a grant', async () => {
      const call = readCall();
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => proposeAuthorizing(call)));
      const grants = outcomes.flatMap((o) => (o.status === 'allowed' && o.grant !== undefined ? [o.grant] : []));
      expect(grants).toHaveLength(1);
      expect(outcomes.every((o) => o.status === 'allowed' && o.proposalId === grants[0]!.proposalId)).toBe(true);
    });

    it('a call first proposed without it is not authorized by proposing it again with it', async () => {
      const call = readCall();
      const first = await kit.propose(call);
      const again = await proposeAuthorizing(call);
      expect(again).toMatchObject({ status: 'allowed', proposalId: (first as { proposalId: string }).proposalId });
      expect(again.status === 'allowed' && again.grant).toBeFalsy();
      expect(await kit.port().callStatus((first as { proposalId: string }).proposalId)).toMatchObject({ ok: true, call: { state: 'proposed' } });
    });

    it("a grant whose arguments or tool drifted from the ledger's call is refused at complete", async () => {
      const outcome = await proposeAuthorizing(readCall());
      if (outcome.status !== 'allowed' || outcome.grant === undefined) throw new Error(`expected a grant, got ${JSON.stringify(outcome)}`);
      const grant = JSON.parse(JSON.stringify(outcome.grant)) as typeof outcome.grant;
      for (const edit of [{ canonicalArgs: '{"path":"/etc/passwd"}' }, { toolName: 'kit_delete' }, { argsDigest: '0'.repeat(64) }]) {
        expect(await kit.complete({ ...grant, ...edit })).toMatchObject({ ok: false, reason: 'grant_mismatch' });
      }
      expect(await kit.complete(grant)).toMatchObject({ ok: true });
    });

    it("another agent's call in a's run gets nothing", async () => {
      const call = readCall();
      await proposeAuthorizing(call);
      const intruder = await proposeAuthorizing({ ...call, callId: `${call.callId}-b` }, 'b');
      expect(intruder.status === 'allowed').toBe(false);
    });
  });
}
