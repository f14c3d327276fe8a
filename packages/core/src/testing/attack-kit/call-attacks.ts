import { describe, expect, it } from 'vitest';
import type { AuthorizeOutcome } from '../../gate/common/port.ts';
import { KIT_CHANGED_DEFINITION } from './fixtures.ts';
import type { KitContext } from './kit-context.ts';

const granted = (outcomes: AuthorizeOutcome[]) => outcomes.filter((o) => o.status === 'authorized').length;

/** Attacks on what runs: drift, swaps, other agents' calls, consumption races, unclassified and changed tools. */
export function describeCallAttacks(kit: KitContext): void {
  describe('the call that runs', () => {
    it('honest calls: an allowed call and an approved call each run once, with the ledger arguments', async () => {
      const read = kit.call({ toolName: 'kit_read', arguments: '{"path":"a.txt" , "z":1}' });
      const allowed = await kit.propose(read);
      expect(allowed).toMatchObject({ status: 'allowed' });
      const readId = (allowed as { proposalId: string }).proposalId;
      expect(await kit.run(kit.request(read, readId))).toMatchObject({ status: 'authorized', grant: { canonicalArgs: '{"path":"a.txt","z":1}' } });
      const { call, proposalId, token } = await kit.approved({ arguments: { to: 'alice', amount: 500 } });
      const outcome = await kit.run(kit.request(call, proposalId, token));
      expect(outcome).toMatchObject({ status: 'authorized', grant: { proposalId, toolName: 'kit_transfer', canonicalArgs: '{"amount":500,"to":"alice"}' } });
      expect(kit.runsOf(readId) + kit.runsOf(proposalId)).toBe(2);
      expect(await kit.port().callStatus(proposalId)).toMatchObject({ ok: true, call: { state: 'succeeded' } });
    });

    it('argument drift at authorize (500 → 10000, an added cc) is refused; the honest call still runs', async () => {
      const { call, proposalId, token } = await kit.approved();
      for (const drift of [{ amount: 10000, to: 'alice' }, { amount: 500, to: 'alice', cc: 'mallory' }]) {
        expect(await kit.run({ ...kit.request(call, proposalId, token), arguments: drift })).toMatchObject({ status: 'not_approved', reason: 'args_mismatch' });
      }
      expect(await kit.propose({ ...call, arguments: { amount: 10000, to: 'alice' } })).toMatchObject({ status: 'rejected', reason: 'call_conflict' });
      expect(kit.runsOf(proposalId)).toBe(0);
      expect(await kit.run(kit.request(call, proposalId, token))).toMatchObject({ status: 'authorized' });
    });

    it('tool swap and principal, session, run and call swaps in the request are refused', async () => {
      const { call, proposalId, token } = await kit.approved();
      const honest = kit.request(call, proposalId, token);
      const swaps: Array<[Partial<typeof honest>, string]> = [
        [{ toolName: 'kit_delete' }, 'tool_mismatch'],
        [{ principal: 'user:other' }, 'principal_mismatch'],
        [{ sessionId: 'kit-session-other' }, 'session_mismatch'],
        [{ runId: 'kit-run-other' }, 'run_mismatch'],
        [{ callId: 'kit-call-other' }, 'call_mismatch'],
      ];
      for (const [swap, reason] of swaps) {
        expect(await kit.run({ ...honest, ...swap })).toMatchObject({ status: 'not_approved', reason });
      }
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it("another agent cannot see, wait on, authorize or complete a call; the owner's approval stays usable", async () => {
      const { call, proposalId, requestId, token } = await kit.approved();
      expect(await kit.run(kit.request(call, proposalId, token), 'b')).toMatchObject({ status: 'not_approved', reason: 'unknown_call' });
      expect(await kit.port('b').callStatus(proposalId)).toMatchObject({ ok: false, reason: 'not_found' });
      expect(await kit.port('b').token(requestId)).toMatchObject({ ok: false, reason: 'not_found' });
      expect(await kit.port('b').waitForDecision(requestId, { timeoutMs: 0 })).toMatchObject({ ok: false, reason: 'not_found' });
      const outcome = await kit.port().authorize(kit.request(call, proposalId, token));
      if (outcome.status !== 'authorized') throw new Error(`expected authorized, got ${JSON.stringify(outcome)}`);
      expect(await kit.complete(outcome.grant, 'b')).toMatchObject({ ok: false, reason: 'unknown_grant' });
      expect(await kit.port().callStatus(proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
      expect(await kit.complete(outcome.grant)).toMatchObject({ ok: true, duplicate: false });
    });

    it('a call the model never made is refused', async () => {
      const call = kit.call({ toolName: 'kit_read', arguments: {} });
      expect(await kit.run(kit.request(call, 'kit-never-proposed'))).toMatchObject({ status: 'not_approved', reason: 'unknown_call' });
    });

    it('double consumption, sequential: the second authorize is refused', async () => {
      const { call, proposalId, token } = await kit.approved();
      expect(await kit.run(kit.request(call, proposalId, token))).toMatchObject({ status: 'authorized' });
      expect(await kit.run(kit.request(call, proposalId, token))).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
      expect(await kit.run(kit.request(call, proposalId))).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
      expect(kit.runsOf(proposalId)).toBe(1);
    });

    it('concurrent consumption: of 25 concurrent authorizes of one approval exactly one gets a grant', async () => {
      const { call, proposalId, token } = await kit.approved();
      const outcomes = await Promise.all(Array.from({ length: 25 }, () => kit.run(kit.request(call, proposalId, token))));
      expect(granted(outcomes)).toBe(1);
      expect(outcomes.filter((o) => o.status === 'not_approved' && o.reason === 'already_consumed')).toHaveLength(24);
      expect(kit.runsOf(proposalId)).toBe(1);
      const read = kit.call({ toolName: 'kit_read', arguments: {} });
      const readId = ((await kit.propose(read)) as { proposalId: string }).proposalId;
      expect(granted(await Promise.all(Array.from({ length: 10 }, () => kit.run(kit.request(read, readId)))))).toBe(1);
    });

    it('unclassified tools are denied by default; policy deny is denied', async () => {
      for (const [toolName, reason] of [
        ['kit_unlisted', 'unclassified_tool'],
        ['kit_delete', 'policy_deny'],
      ] as const) {
        const call = kit.call({ toolName, arguments: {} });
        const proposed = await kit.propose(call);
        expect(proposed).toMatchObject({ status: 'denied', reason });
        const proposalId = (proposed as { proposalId?: string }).proposalId;
        if (proposalId === undefined) continue;
        expect(await kit.run(kit.request(call, proposalId))).toMatchObject({ status: 'denied', reason });
        expect(kit.runsOf(proposalId)).toBe(0);
      }
    });

    it('a tool definition changed after the call was proposed disables the call', async (context) => {
      const change = kit.adapter.changeToolDefinition;
      if (change === undefined) return context.skip();
      const { call, proposalId, token } = await kit.approved({ toolName: KIT_CHANGED_DEFINITION.name });
      await change.call(kit.adapter, KIT_CHANGED_DEFINITION.name);
      expect(await kit.run(kit.request(call, proposalId, token))).toMatchObject({ status: 'not_approved', reason: 'definition_mismatch' });
      expect(kit.runsOf(proposalId)).toBe(0);
    });
  });
}
