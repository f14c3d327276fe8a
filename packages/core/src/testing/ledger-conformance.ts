import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../digest.ts';
import type { LedgerStore } from '../ledger/types.ts';
import { describeContextRecording } from './context-conformance.ts';
import { describeEditConformance } from './edit-conformance.ts';
import { describeApproverConformance } from './ledger-approver-conformance.ts';
import { describeProviderExecuted } from './provider-executed-conformance.ts';
import { describeConsumedOnRecord } from './consumed-on-record-conformance.ts';
import { SAMPLE_T0, sampleProposal, sampleRequest, tryToEdit, uid } from './ledger-samples.ts';
import { describeResultRecording } from './result-conformance.ts';
import { describeProviderOutputRecording } from './provider-output-ledger-conformance.ts';
import { describeRunOwnership } from './run-ownership-conformance.ts';
import { describeWithdrawConformance } from './withdraw-conformance.ts';

export interface LedgerHarness {
  store: LedgerStore;
  /** Called once after the suite. */
  cleanup?: () => Promise<void>;
}

const T0 = SAMPLE_T0;

/**
 * The behaviour every `LedgerStore` backend must have. Run it from the backend's
 * own test file: `runLedgerConformance('sqlite', async () => ({ store, cleanup }))`.
 */
export function runLedgerConformance(name: string, makeHarness: () => Promise<LedgerHarness>): void {
  describe(`LedgerStore conformance: ${name}`, () => {
    let harness: LedgerHarness;
    let store: LedgerStore;
    beforeAll(async () => {
      harness = await makeHarness();
      store = harness.store;
    });
    afterAll(async () => {
      await harness?.cleanup?.();
    });

    async function approvedCall(opts: { requiredApprovals?: number; expiresAt?: number } = {}) {
      const proposal = sampleProposal();
      await store.recordProposal(proposal);
      const req = await store.createApprovalRequest(
        sampleRequest(proposal.proposalId, {
          requiredApprovals: opts.requiredApprovals ?? 1,
          expiresAt: opts.expiresAt ?? T0 + 60_000,
        }),
      );
      const tokenId = uid('tok');
      const decided = await store.addDecision(
        req.requestId,
        { approver: 'alice', decision: 'approve', at: T0 + 1 },
        { now: T0 + 1, tokenIdIfApproved: tokenId },
      );
      return { proposal, requestId: req.requestId, tokenId, decided };
    }

    it('ping (readiness), when the store has one, resolves on a working store and writes nothing', async () => {
      const p = sampleProposal();
      await store.recordProposal(p);
      await store.ping?.();
      expect(await store.getProposal(p.proposalId)).toMatchObject({ proposalId: p.proposalId });
    });

    it('refusals recorded for a call: found by (call, text digest) only, recorded again without error', async () => {
      // Every store the project ships records them (the relay check recognises the MCP gateway's refusal by them).
      expect(store.recordCallRefusal, 'recordCallRefusal').toBeTypeOf('function');
      const p = sampleProposal();
      const other = sampleProposal();
      await store.recordProposal(p);
      await store.recordProposal(other);
      const digest = 'c'.repeat(64);
      expect(await store.hasCallRefusal?.(p.proposalId, digest)).toBe(false);
      await store.recordCallRefusal?.(p.proposalId, digest, T0 + 5);
      await store.recordCallRefusal?.(p.proposalId, digest, T0 + 6);
      expect(await store.hasCallRefusal?.(p.proposalId, digest)).toBe(true);
      expect(await store.hasCallRefusal?.(p.proposalId, 'd'.repeat(64))).toBe(false);
      expect(await store.hasCallRefusal?.(other.proposalId, digest)).toBe(false);
    });

    describe('proposals', () => {
      it('records a proposal exactly as given and finds it by id and by (run, call)', async () => {
        const p = sampleProposal({ definitionDigest: 'a'.repeat(64), parentProposalId: 'parent-1' });
        const r = await store.recordProposal(p);
        expect(r).toMatchObject({ ok: true, created: true });
        const byId = await store.getProposal(p.proposalId);
        expect(byId).toMatchObject({ ...p, state: 'proposed' });
        expect(await store.findProposalByCall(p.runId, p.callId)).toEqual(byId);
        expect(await store.getProposal('nope')).toBeUndefined();
        expect(await store.findProposalByCall(p.runId, 'other-call')).toBeUndefined();
      });

      it('finds the oldest undispatched call of a run by tool and argument digest, never another run\'s or a dispatched one', async () => {
        const runId = uid('run');
        const older = sampleProposal({ runId, createdAt: T0 + 1 });
        const newer = sampleProposal({ runId, createdAt: T0 + 2 });
        const otherTool = sampleProposal({ runId, toolName: 'refund', createdAt: T0 });
        const otherRun = sampleProposal({ createdAt: T0 });
        for (const p of [newer, older, otherTool, otherRun]) await store.recordProposal(p);
        expect((await store.findOpenCall(runId, 'transfer', older.argsDigest))?.proposalId).toBe(older.proposalId);
        expect(await store.findOpenCall(runId, 'transfer', sha256Hex('{}'))).toBeUndefined();
        expect(await store.findOpenCall(uid('run'), 'transfer', older.argsDigest)).toBeUndefined();
        // Allowed calls are consumed without an approval: the older one is spent, the newer one is next.
        expect(await store.consume({ proposalId: older.proposalId, now: T0 + 3 })).toMatchObject({ ok: true });
        expect((await store.findOpenCall(runId, 'transfer', older.argsDigest))?.proposalId).toBe(newer.proposalId);
        expect(await store.consume({ proposalId: newer.proposalId, now: T0 + 4 })).toMatchObject({ ok: true });
        expect(await store.findOpenCall(runId, 'transfer', older.argsDigest)).toBeUndefined();
      });

      it('re-recording the same call is idempotent; different arguments under the same call id conflict', async () => {
        const p = sampleProposal();
        await store.recordProposal(p);
        const again = await store.recordProposal({ ...p, proposalId: uid('prop') });
        expect(again).toMatchObject({ ok: true, created: false });
        if (again.ok) expect(again.proposal.proposalId).toBe(p.proposalId);
        const drift = '{"amount":10000,"to":"alice"}';
        const conflict = await store.recordProposal({
          ...p,
          proposalId: uid('prop'),
          canonicalArgs: drift,
          argsDigest: sha256Hex(drift),
        });
        expect(conflict).toMatchObject({ ok: false, reason: 'conflict' });
        const stored = await store.getProposal(p.proposalId);
        expect(stored?.canonicalArgs).toBe(p.canonicalArgs);
      });

      it('the same call id in another run is a different call', async () => {
        const p = sampleProposal();
        await store.recordProposal(p);
        const other = await store.recordProposal({ ...p, proposalId: uid('prop'), runId: uid('run') });
        expect(other).toMatchObject({ ok: true, created: true });
      });

      it('stores arguments byte for byte (unicode, escapes)', async () => {
        const args = '{"note":"é\\u0000\\"<script>\\n😀","z":[1,2.5,-0.001]}';
        const p = sampleProposal({ canonicalArgs: args, argsDigest: sha256Hex(args) });
        await store.recordProposal(p);
        expect((await store.getProposal(p.proposalId))?.canonicalArgs).toBe(args);
      });
    });

    describeRunOwnership(() => store, sampleProposal);
    describeContextRecording(() => store, { proposal: sampleProposal, request: sampleRequest });
    describeProviderExecuted(() => store, sampleProposal);
    describeConsumedOnRecord(() => store, sampleProposal);

    describe('approval lifecycle', () => {
      it('pending → approved with a token id, then consumed once', async () => {
        const { proposal, requestId, tokenId, decided } = await approvedCall();
        expect(decided).toMatchObject({ ok: true, request: { status: 'approved', tokenId, approvedAt: T0 + 1 } });
        const first = await store.consume({ proposalId: proposal.proposalId, approval: { requestId, tokenId }, now: T0 + 2 });
        expect(first).toMatchObject({ ok: true, proposal: { state: 'dispatched', dispatchedAt: T0 + 2 } });
        const second = await store.consume({ proposalId: proposal.proposalId, approval: { requestId, tokenId }, now: T0 + 3 });
        expect(second).toEqual({ ok: false, reason: 'already_consumed' });
        expect(await store.getApprovalRequest(requestId)).toMatchObject({ status: 'consumed', consumedAt: T0 + 2 });
      });

      it('a pending request cannot be consumed', async () => {
        const proposal = sampleProposal();
        await store.recordProposal(proposal);
        const req = await store.createApprovalRequest(sampleRequest(proposal.proposalId));
        const r = await store.consume({
          proposalId: proposal.proposalId,
          approval: { requestId: req.requestId, tokenId: 'any' },
          now: T0 + 1,
        });
        expect(r).toEqual({ ok: false, reason: 'not_approved' });
        expect((await store.getProposal(proposal.proposalId))?.state).toBe('proposed');
      });

      it('a deny ends the request; later decisions are refused', async () => {
        const proposal = sampleProposal();
        await store.recordProposal(proposal);
        const req = await store.createApprovalRequest(sampleRequest(proposal.proposalId));
        const denied = await store.addDecision(
          req.requestId,
          { approver: 'bob', decision: 'deny', reason: 'no', at: T0 + 1 },
          { now: T0 + 1, tokenIdIfApproved: 'tok-x' },
        );
        expect(denied).toMatchObject({ ok: true, request: { status: 'denied' } });
        if (denied.ok) expect(denied.request.tokenId).toBeUndefined();
        const late = await store.addDecision(
          req.requestId,
          { approver: 'carol', decision: 'approve', at: T0 + 2 },
          { now: T0 + 2, tokenIdIfApproved: 'tok-y' },
        );
        expect(late).toEqual({ ok: false, reason: 'already_decided' });
      });

      it('n-of-m: needs distinct approvers; the same approver twice is refused', async () => {
        const { requestId, decided } = await approvedCall({ requiredApprovals: 2 });
        expect(decided).toMatchObject({ ok: true, request: { status: 'pending' } });
        const again = await store.addDecision(
          requestId,
          { approver: 'alice', decision: 'approve', at: T0 + 2 },
          { now: T0 + 2, tokenIdIfApproved: 'tok-2' },
        );
        expect(again).toEqual({ ok: false, reason: 'duplicate_approver' });
        const second = await store.addDecision(
          requestId,
          { approver: 'bob', decision: 'approve', at: T0 + 3 },
          { now: T0 + 3, tokenIdIfApproved: 'tok-3' },
        );
        expect(second).toMatchObject({ ok: true, request: { status: 'approved', tokenId: 'tok-3' } });
        if (second.ok) expect(second.request.decisions.map((d) => d.approver)).toEqual(['alice', 'bob']);
      });

      it('decisions on unknown or expired requests are refused', async () => {
        expect(
          await store.addDecision(
            'missing',
            { approver: 'a', decision: 'approve', at: T0 },
            { now: T0, tokenIdIfApproved: 't' },
          ),
        ).toEqual({ ok: false, reason: 'not_found' });
        const proposal = sampleProposal();
        await store.recordProposal(proposal);
        const req = await store.createApprovalRequest(sampleRequest(proposal.proposalId, { expiresAt: T0 + 1000 }));
        const late = await store.addDecision(
          req.requestId,
          { approver: 'a', decision: 'approve', at: T0 + 1000 },
          { now: T0 + 1000, tokenIdIfApproved: 't' },
        );
        expect(late).toEqual({ ok: false, reason: 'expired' });
      });

      it('an approval expires with the injected clock and never consumes afterwards', async () => {
        const { proposal, requestId, tokenId } = await approvedCall({ expiresAt: T0 + 5_000 });
        const late = await store.consume({ proposalId: proposal.proposalId, approval: { requestId, tokenId }, now: T0 + 5_000 });
        expect(late).toEqual({ ok: false, reason: 'expired' });
        expect((await store.getProposal(proposal.proposalId))?.state).toBe('proposed');
        expect(await store.listApprovalRequests({ status: 'expired' }, T0 + 5_000)).toEqual(
          expect.arrayContaining([expect.objectContaining({ requestId })]),
        );
      });

      it('a different token id cannot consume the approval', async () => {
        const { proposal, requestId } = await approvedCall();
        const r = await store.consume({ proposalId: proposal.proposalId, approval: { requestId, tokenId: 'forged' }, now: T0 + 2 });
        expect(r).toEqual({ ok: false, reason: 'token_mismatch' });
      });

      it("an approval cannot consume another proposal's call", async () => {
        const { requestId, tokenId } = await approvedCall();
        const other = sampleProposal();
        await store.recordProposal(other);
        const r = await store.consume({ proposalId: other.proposalId, approval: { requestId, tokenId }, now: T0 + 2 });
        expect(r).toEqual({ ok: false, reason: 'not_found' });
        expect((await store.getProposal(other.proposalId))?.state).toBe('proposed');
      });

      it('a revoked approval never consumes', async () => {
        const { proposal, requestId, tokenId } = await approvedCall();
        expect(await store.revokeApproval(requestId, T0 + 2)).toBe(true);
        const r = await store.consume({ proposalId: proposal.proposalId, approval: { requestId, tokenId }, now: T0 + 3 });
        expect(r).toEqual({ ok: false, reason: 'revoked' });
        expect(await store.revokeApproval(requestId, T0 + 4)).toBe(false);
      });

      it('keeps a passkey rule with its request, and a passkey assertion with its decision, through recordEdit too', async () => {
        const proposal = sampleProposal();
        await store.recordProposal(proposal);
        const req = await store.createApprovalRequest(sampleRequest(proposal.proposalId, { passkey: 'required' }));
        expect(req.passkey).toBe('required');
        expect((await store.getApprovalRequest(req.requestId))?.passkey).toBe('required');
        const plain = sampleProposal();
        await store.recordProposal(plain);
        const plainReq = await store.createApprovalRequest(sampleRequest(plain.proposalId));
        expect(Object.hasOwn((await store.getApprovalRequest(plainReq.requestId)) ?? {}, 'passkey')).toBe(false);
        const passkey = {
          credentialId: 'Y3JlZA',
          authenticatorData: 'YXV0aA',
          clientDataJSON: 'Y2xpZW50',
          signature: 'c2ln',
          userHandle: 'dXNlcg',
          rpId: 'localhost',
          origin: 'http://localhost:8787',
        };
        const decided = await store.addDecision(req.requestId, { approver: 'alice', decision: 'approve', at: T0 + 1, passkey }, { now: T0 + 1, tokenIdIfApproved: uid('tok') });
        expect(decided).toMatchObject({ ok: true, request: { passkey: 'required', decisions: [{ approver: 'alice', passkey }] } });
        expect((await store.getApprovalRequest(req.requestId))?.decisions).toEqual([{ approver: 'alice', decision: 'approve', at: T0 + 1, passkey }]);
        expect((await store.getProposalWithRequest(proposal.proposalId))?.request?.decisions[0]?.passkey).toEqual(passkey);
        expect((await store.listApprovalRequests({ status: 'approved', limit: 1000 }, T0 + 2)).find((r) => r.requestId === req.requestId)?.decisions[0]?.passkey).toEqual(passkey);
        // Approve-with-edits: the closing deny keeps its assertion; the edited request keeps the rule.
        const original = sampleProposal();
        await store.recordProposal(original);
        const originalReq = await store.createApprovalRequest(sampleRequest(original.proposalId, { passkey: 'required' }));
        const editedProposal = sampleProposal({ runId: original.runId, agent: original.agent, parentProposalId: original.proposalId, canonicalArgs: '{"amount":5,"to":"alice"}' });
        const edited = await store.recordEdit({
          original: { requestId: originalReq.requestId, decision: { approver: 'alice', decision: 'deny', reason: 'edited', at: T0 + 1, editedProposalId: editedProposal.proposalId, passkey } },
          proposal: editedProposal,
          request: sampleRequest(editedProposal.proposalId, { passkey: 'required' }),
          now: T0 + 1,
        });
        expect(edited).toMatchObject({ ok: true, original: { decisions: [{ passkey }] }, request: { passkey: 'required', status: 'pending' } });
        expect((await store.getApprovalRequest(originalReq.requestId))?.decisions[0]?.passkey).toEqual(passkey);
      });

      it('one request per proposal', async () => {
        const proposal = sampleProposal();
        await store.recordProposal(proposal);
        await store.createApprovalRequest(sampleRequest(proposal.proposalId));
        await expect(store.createApprovalRequest(sampleRequest(proposal.proposalId))).rejects.toThrow();
        const found = await store.findApprovalRequestByProposal(proposal.proposalId);
        expect(found?.proposalId).toBe(proposal.proposalId);
      });

      it('getProposalWithRequest: the call and its request (with decisions) in one read, equal to the single reads', async () => {
        expect(await store.getProposalWithRequest(uid('missing'))).toBeUndefined();
        const bare = sampleProposal();
        await store.recordProposal(bare);
        expect(await store.getProposalWithRequest(bare.proposalId)).toEqual({ proposal: await store.getProposal(bare.proposalId), request: undefined });

        const { proposal, requestId, tokenId } = await approvedCall();
        const found = await store.getProposalWithRequest(proposal.proposalId);
        expect(found).toEqual({ proposal: await store.getProposal(proposal.proposalId), request: await store.getApprovalRequest(requestId) });
        expect(found?.request).toMatchObject({ requestId, status: 'approved', tokenId, decisions: [{ decision: 'approve' }] });
        // Editing what a read handed out (a copy, or a frozen record) never reaches the store.
        tryToEdit(() => {
          found!.proposal.canonicalArgs = '{"tampered":true}';
        });
        tryToEdit(() => {
          found!.request!.status = 'pending';
        });
        const again = await store.getProposalWithRequest(proposal.proposalId);
        expect(again?.proposal.canonicalArgs).toBe(proposal.canonicalArgs);
        expect(again?.request?.status).toBe('approved');
        await store.consume({ proposalId: proposal.proposalId, approval: { requestId, tokenId }, now: T0 + 3 });
        expect(await store.getProposalWithRequest(proposal.proposalId)).toMatchObject({
          proposal: { state: 'dispatched', dispatchedAt: T0 + 3 },
          request: { status: 'consumed' },
        });
      });

      it('getRequestWithProposal: the request (with decisions) and its call in one read, equal to the single reads', async () => {
        expect(await store.getRequestWithProposal(uid('missing'))).toBeUndefined();
        const { proposal, requestId, tokenId } = await approvedCall();
        const found = await store.getRequestWithProposal(requestId);
        expect(found).toEqual({ request: await store.getApprovalRequest(requestId), proposal: await store.getProposal(proposal.proposalId) });
        expect(found?.request).toMatchObject({ requestId, proposalId: proposal.proposalId, status: 'approved', tokenId, decisions: [{ decision: 'approve' }] });
        // Editing what a read handed out (a copy, or a frozen record) never reaches the store.
        tryToEdit(() => {
          found!.proposal.canonicalArgs = '{"tampered":true}';
        });
        expect((await store.getRequestWithProposal(requestId))?.proposal.canonicalArgs).toBe(proposal.canonicalArgs);
        await store.consume({ proposalId: proposal.proposalId, approval: { requestId, tokenId }, now: T0 + 3 });
        expect(await store.getRequestWithProposal(requestId)).toMatchObject({ request: { status: 'consumed' }, proposal: { state: 'dispatched' } });
      });

      it('lists requests by effective status, newest first', async () => {
        const runId = uid('run');
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const p = sampleProposal({ runId });
          await store.recordProposal(p);
          const req = await store.createApprovalRequest(
            sampleRequest(p.proposalId, { createdAt: T0 + 10_000_000 + i, expiresAt: T0 + 20_000_000 }),
          );
          ids.push(req.requestId);
        }
        const pending = await store.listApprovalRequests({ status: 'pending', limit: 1000 }, T0 + 10_000_100);
        const positions = ids.map((id) => pending.findIndex((r) => r.requestId === id));
        expect(positions.every((p) => p >= 0)).toBe(true);
        expect(positions[2]).toBeLessThan(positions[1]!);
        expect(positions[1]).toBeLessThan(positions[0]!);
        const limited = await store.listApprovalRequests({ status: 'pending', limit: 2 }, T0 + 10_000_100);
        expect(limited).toHaveLength(2);
      });
    });

    describeApproverConformance(() => store);
    describeEditConformance(() => store);
    describeWithdrawConformance(() => store);
    describeResultRecording(() => store, sampleProposal);
    describeProviderOutputRecording(() => store, sampleProposal);

    describe('single use', () => {
      it('a call without approval dispatches once', async () => {
        const p = sampleProposal();
        await store.recordProposal(p);
        expect(await store.consume({ proposalId: p.proposalId, now: T0 })).toMatchObject({ ok: true });
        expect(await store.consume({ proposalId: p.proposalId, now: T0 })).toEqual({
          ok: false,
          reason: 'already_consumed',
        });
        expect(await store.consume({ proposalId: 'missing', now: T0 })).toEqual({ ok: false, reason: 'not_found' });
      });

      it('1,000 concurrent consumptions of one approval: exactly one succeeds', async () => {
        const { proposal, requestId, tokenId } = await approvedCall();
        const results = await Promise.all(
          Array.from({ length: 1000 }, () =>
            store.consume({ proposalId: proposal.proposalId, approval: { requestId, tokenId }, now: T0 + 2 }),
          ),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        expect(results.filter((r) => !r.ok && r.reason === 'already_consumed')).toHaveLength(999);
      });
    });
  });
}
