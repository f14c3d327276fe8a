import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditLog, AuditRecord } from '../audit/types.ts';
import { verifyChain } from '../audit/verify-chain.ts';
import { sha256Hex } from '../digest.ts';
import type { EditInput, LedgerStore, NewApprovalRequest, Proposal } from '../ledger/types.ts';
import { describeAuditIfWritten } from './audit-if-written-conformance.ts';
import { describeAuditByStatus } from './decision-audit-conformance.ts';
import { sampleProposal } from './ledger-samples.ts';

export interface AtomicAuditHarness {
  /** A ledger whose `auditLog` is `audit`. */
  ledger: LedgerStore;
  /** A fresh, empty log: seq numbers in this suite are absolute. */
  audit: AuditLog;
  /** Called after each test. */
  cleanup?: () => Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);

function about(proposal: Proposal, type: AuditEvent['type']): AuditEvent {
  return { type, at: T0, runId: proposal.runId, proposalId: proposal.proposalId, argsDigest: proposal.argsDigest, actor: 'system' };
}

/** An event no audit log accepts (`at` must be finite): the audit part of the write fails. */
const INVALID: AuditEvent = { type: 'dispatch', at: Number.NaN };

function request(overrides: Partial<Omit<NewApprovalRequest, 'proposalId'>> = {}): Omit<NewApprovalRequest, 'proposalId'> {
  return {
    requestId: `req-${process.pid}-${Math.random().toString(36).slice(2)}`,
    createdAt: T0,
    expiresAt: T0 + 60_000,
    requiredApprovals: 1,
    eligible: { roles: ['approver'] },
    ruleId: 'rule-1',
    ...overrides,
  };
}

/**
 * A store that holds its ledger and audit log on one connection commits a ledger write
 * and the audit records passed with it in ONE transaction (`LedgerStore.auditLog`): a
 * failure in the audit part rolls the ledger change back, and a failing ledger part
 * appends nothing. `makeHarness` is called before each test.
 */
export function runAtomicAuditConformance(name: string, makeHarness: () => Promise<AtomicAuditHarness>): void {
  describe(`ledger + audit in one transaction: ${name}`, () => {
    let harness: AtomicAuditHarness | undefined;
    let ledger: LedgerStore;
    let audit: AuditLog;
    beforeEach(async () => {
      harness = await makeHarness();
      ledger = harness.ledger;
      audit = harness.audit;
    });
    afterEach(async () => {
      await harness?.cleanup?.();
      harness = undefined;
    });

    /** A proposal, approved with token `tok`, recorded without audit. */
    async function approved(tok: string): Promise<{ proposal: Proposal; requestId: string }> {
      const recorded = await ledger.recordProposal(sampleProposal(), { request: request() });
      if (!recorded.ok || recorded.request === undefined) throw new Error('setup: proposal with request not recorded');
      const decided = await ledger.addDecision(
        recorded.request.requestId,
        { approver: 'alice', decision: 'approve', at: T0 + 1 },
        { now: T0 + 1, tokenIdIfApproved: tok },
      );
      if (!decided.ok) throw new Error(`setup: approval failed: ${decided.reason}`);
      return { proposal: recorded.proposal, requestId: recorded.request.requestId };
    }

    it('declares the audit log it appends to', () => {
      expect(ledger.auditLog).toBe(audit);
    });

    it('records a proposal, its approval request and their records together', async () => {
      const input = sampleProposal();
      const seen: AuditRecord[] = [];
      const unsubscribe = audit.onLedgerAppend?.((records) => seen.push(...records));
      const recorded = await ledger.recordProposal(input, {
        request: request(),
        audit: (r) => (r.ok && r.created ? [about(r.proposal, 'proposal'), about(r.proposal, 'verdict'), about(r.proposal, 'approval_requested')] : []),
      });
      unsubscribe?.();
      expect(recorded.ok && recorded.created).toBe(true);
      if (!recorded.ok) return;
      expect(recorded.request?.status).toBe('pending');
      expect((await ledger.findApprovalRequestByProposal(input.proposalId))?.requestId).toBe(recorded.request?.requestId);
      const records = await audit.read();
      expect(records.map((r) => [r.seq, r.type, r.proposalId])).toEqual([
        [1, 'proposal', input.proposalId],
        [2, 'verdict', input.proposalId],
        [3, 'approval_requested', input.proposalId],
      ]);
      // Records appended inside a ledger write are announced after commit (checkpointing wrappers count them).
      expect(seen.map((r) => r.seq)).toEqual([1, 2, 3]);

      // An idempotent repeat creates nothing, so it has nothing to record.
      const again = await ledger.recordProposal({ ...input, proposalId: `${input.proposalId}-2` }, {
        request: request(),
        audit: (r) => (r.ok && r.created ? [about(r.proposal, 'proposal')] : []),
      });
      expect(again.ok && !again.created && again.request === undefined).toBe(true);
      expect((await audit.head())?.seq).toBe(3);
    });

    it('a failing audit part rolls back the proposal, its run claim and its request', async () => {
      for (const failing of [() => [INVALID], () => { throw new Error('audit builder failed'); }]) {
        const input = sampleProposal();
        const req = request();
        await expect(ledger.recordProposal(input, { request: req, audit: failing })).rejects.toThrow();
        expect(await ledger.getProposal(input.proposalId)).toBeUndefined();
        expect(await ledger.findProposalByCall(input.runId, input.callId)).toBeUndefined();
        expect(await ledger.getRunOwner(input.runId)).toBeUndefined();
        expect(await ledger.getApprovalRequest(req.requestId)).toBeUndefined();
        // Nothing of it stands in the way of recording the call again.
        const retried = await ledger.recordProposal({ ...input, agent: 'agent-b' });
        expect(retried.ok && retried.created).toBe(true);
      }
      expect(await audit.head()).toBeUndefined();
    });

    it('a call recorded consumed commits with its dispatch record, and a failing audit part leaves neither call nor consume', async () => {
      const failed = sampleProposal();
      await expect(ledger.recordProposal(failed, { consumedAt: T0 + 1, audit: (r) => (r.ok ? [about(r.proposal, 'proposal'), INVALID] : []) })).rejects.toThrow();
      expect(await ledger.findProposalByCall(failed.runId, failed.callId)).toBeUndefined();
      expect(await audit.head()).toBeUndefined();
      // The same call recorded again (a retry after the outage) is created consumed, with its records.
      const recorded = await ledger.recordProposal(failed, {
        consumedAt: T0 + 1,
        audit: (r) => (r.ok && r.created ? [about(r.proposal, 'proposal'), about(r.proposal, 'verdict'), about(r.proposal, 'dispatch')] : []),
      });
      expect(recorded).toMatchObject({ ok: true, created: true, proposal: { state: 'dispatched', dispatchedAt: T0 + 1 } });
      expect((await audit.read()).map((r) => r.type)).toEqual(['proposal', 'verdict', 'dispatch']);
    });

    it('a failing audit part rolls back the consume: the approval is not spent', async () => {
      const { proposal, requestId } = await approved('tok-1');
      const consume = { proposalId: proposal.proposalId, approval: { requestId, tokenId: 'tok-1' }, now: T0 + 2 };
      await expect(ledger.consume(consume, () => [about(proposal, 'dispatch'), INVALID])).rejects.toThrow();
      expect((await ledger.getProposal(proposal.proposalId))?.state).toBe('proposed');
      expect((await ledger.getApprovalRequest(requestId))?.status).toBe('approved');
      expect(await audit.head()).toBeUndefined();

      const spent = await ledger.consume(consume, (c) => (c.ok ? [about(c.proposal, 'dispatch')] : []));
      expect(spent.ok).toBe(true);
      expect((await ledger.getApprovalRequest(requestId))?.status).toBe('consumed');
      expect((await audit.read()).map((r) => r.type)).toEqual(['dispatch']);
    });

    it('a failing audit part rolls back the decision: the request stays pending, no token id', async () => {
      const recorded = await ledger.recordProposal(sampleProposal(), { request: request() });
      if (!recorded.ok || recorded.request === undefined) throw new Error('setup');
      const { requestId } = recorded.request;
      const decision = { approver: 'alice', decision: 'approve' as const, at: T0 + 1 };
      await expect(ledger.addDecision(requestId, decision, { now: T0 + 1, tokenIdIfApproved: 'tok-1', audit: () => [INVALID] })).rejects.toThrow();
      const after = await ledger.getApprovalRequest(requestId);
      expect(after?.status).toBe('pending');
      expect(after?.decisions).toEqual([]);
      expect(after?.tokenId).toBeUndefined();
      expect(await audit.head()).toBeUndefined();

      const decided = await ledger.addDecision(requestId, decision, {
        now: T0 + 1,
        tokenIdIfApproved: 'tok-1',
        audit: (r) => (r.ok ? [{ ...about(recorded.proposal, 'decision'), detail: { status: r.request.status } }] : []),
      });
      expect(decided.ok && decided.request.status).toBe('approved');
      expect((await audit.read()).map((r) => [r.type, r.detail?.status])).toEqual([['decision', 'approved']]);
    });

    it('a failing audit part rolls back the revocation: the approval still works', async () => {
      const { proposal, requestId } = await approved('tok-r');
      await expect(ledger.revokeApproval(requestId, T0 + 2, () => [INVALID])).rejects.toThrow();
      expect((await ledger.getApprovalRequest(requestId))?.status).toBe('approved');
      expect(await ledger.revokeApproval(requestId, T0 + 2, (revoked) => (revoked ? [about(proposal, 'revocation')] : []))).toBe(true);
      expect((await ledger.getApprovalRequest(requestId))?.status).toBe('revoked');
      expect((await audit.read()).map((r) => r.type)).toEqual(['revocation']);
    });

    it('an edit and its records commit together; a failing audit part rolls the whole edit back (#32)', async () => {
      const original = sampleProposal();
      const recorded = await ledger.recordProposal(original, { request: request() });
      if (!recorded.ok || recorded.request === undefined) throw new Error('setup');
      const { requestId } = recorded.request;
      const edit = (): EditInput => {
        const proposalId = `${original.proposalId}-edit-${Math.random().toString(36).slice(2)}`;
        const args = '{"amount":5}';
        return {
          original: { requestId, decision: { approver: 'alice', decision: 'deny', reason: 'edited', at: T0 + 1, editedProposalId: proposalId } },
          proposal: { ...original, proposalId, callId: `${original.callId}~edit-${proposalId}`, canonicalArgs: args, argsDigest: sha256Hex(args), parentProposalId: original.proposalId, createdAt: T0 + 1 },
          request: { ...request(), proposalId, createdAt: T0 + 1 },
          editorApproval: { decision: { approver: 'alice', decision: 'approve', at: T0 + 1 }, tokenIdIfApproved: 'tok-e' },
          now: T0 + 1,
        };
      };
      const failed = edit();
      await expect(ledger.recordEdit(failed, () => [about(recorded.proposal, 'decision'), INVALID])).rejects.toThrow();
      expect((await ledger.getApprovalRequest(requestId))?.status).toBe('pending');
      expect(await ledger.getProposal(failed.proposal.proposalId)).toBeUndefined();
      expect(await audit.head()).toBeUndefined();

      const edited = await ledger.recordEdit(edit(), (r) => (r.ok ? [about(recorded.proposal, 'decision'), about(r.proposal, 'proposal'), about(r.proposal, 'decision')] : []));
      expect(edited.ok && edited.original.status).toBe('edited');
      expect((await audit.read()).map((r) => r.type)).toEqual(['decision', 'proposal', 'decision']);
    });

    it('a failing audit part rolls back the result', async () => {
      const recorded = await ledger.recordProposal(sampleProposal());
      if (!recorded.ok) throw new Error('setup');
      const { proposalId } = recorded.proposal;
      expect((await ledger.consume({ proposalId, now: T0 + 1 })).ok).toBe(true);
      const result = { status: 'succeeded' as const, resultDigest: 'a'.repeat(64), at: T0 + 2 };
      await expect(ledger.recordResult(proposalId, result, () => [INVALID])).rejects.toThrow();
      expect((await ledger.getProposal(proposalId))?.result).toBeUndefined();

      const stored = await ledger.recordResult(proposalId, result, (r) => (r.ok && r.created ? [about(recorded.proposal, 'result')] : []));
      expect(stored).toEqual({ ok: true, created: true, result });
      expect((await ledger.getProposal(proposalId))?.result).toEqual(result);
      expect((await audit.read()).map((r) => r.type)).toEqual(['result']);
    });

    it("a provider's output and its records commit together; a failing audit part leaves the call neither run nor with an output", async () => {
      const recorded = await ledger.recordProposal(sampleProposal({ executedBy: 'provider' }));
      if (!recorded.ok) throw new Error('setup');
      const call = recorded.proposal;
      const output = { resultDigest: 'a'.repeat(64), at: T0 + 2 };
      for (const failing of [() => [about(call, 'dispatch'), about(call, 'result'), INVALID], () => { throw new Error('audit builder failed'); }]) {
        await expect(ledger.recordProviderOutput(call.proposalId, output, failing)).rejects.toThrow();
        const after = await ledger.getProposal(call.proposalId);
        expect(after?.state).toBe('proposed');
        expect(after?.dispatchedAt).toBeUndefined();
        expect(after?.result).toBeUndefined();
        expect(await audit.head()).toBeUndefined();
      }

      const stored = await ledger.recordProviderOutput(call.proposalId, output, (r) =>
        r.ok && r.created ? (r.dispatched ? [about(call, 'dispatch'), about(call, 'result')] : [about(call, 'result')]) : [],
      );
      expect(stored).toMatchObject({ ok: true, created: true, dispatched: true });
      expect(await ledger.getProposal(call.proposalId)).toMatchObject({ state: 'dispatched', result: { resultDigest: output.resultDigest } });
      expect((await audit.read()).map((r) => r.type)).toEqual(['dispatch', 'result']);
    });

    it("a failing or refused provider output write appends none of its records", async () => {
      const recorded = await ledger.recordProposal(sampleProposal({ executedBy: 'provider' }));
      const runtime = await ledger.recordProposal(sampleProposal());
      if (!recorded.ok || !runtime.ok) throw new Error('setup');
      const call = recorded.proposal;
      const records = () => [about(call, 'dispatch'), about(call, 'result')];
      // The ledger part throws (a malformed digest): the records it was given are not appended.
      await expect(ledger.recordProviderOutput(call.proposalId, { resultDigest: 'not-a-digest', at: T0 + 2 }, records)).rejects.toMatchObject({ code: 'invalid_input' });
      // Refused (a runtime's call, an unknown call): the records built for a refusal (here: none) are all that is appended.
      const onlyIfWritten = (r: Awaited<ReturnType<LedgerStore['recordProviderOutput']>>) => (r.ok && r.created ? records() : []);
      expect(await ledger.recordProviderOutput(runtime.proposal.proposalId, { resultDigest: 'a'.repeat(64), at: T0 + 2 }, onlyIfWritten)).toEqual({ ok: false, reason: 'not_found' });
      expect(await ledger.recordProviderOutput('no-such-proposal', { resultDigest: 'a'.repeat(64), at: T0 + 2 }, onlyIfWritten)).toEqual({ ok: false, reason: 'not_found' });
      expect((await ledger.getProposal(call.proposalId))?.state).toBe('proposed');
      expect((await ledger.getProposal(runtime.proposal.proposalId))?.state).toBe('proposed');
      expect(await audit.head()).toBeUndefined();
    });

    it('a failing or refused ledger part appends nothing', async () => {
      const first = await ledger.recordProposal(sampleProposal());
      if (!first.ok) throw new Error('setup');
      // The ledger part throws (duplicate proposal id): its records are not appended.
      const clash = sampleProposal({ proposalId: first.proposal.proposalId });
      await expect(ledger.recordProposal(clash, { audit: () => [about(first.proposal, 'proposal')] })).rejects.toThrow();
      // Refused outcomes get the records the caller builds for them (here: none).
      const refused = await ledger.consume({ proposalId: 'no-such-proposal', now: T0 }, (c) => (c.ok ? [about(first.proposal, 'dispatch')] : []));
      expect(refused).toEqual({ ok: false, reason: 'not_found' });
      expect(await audit.head()).toBeUndefined();
    });

    it('among concurrent audited writes (one group commit), a failing one rolls back alone', async () => {
      const proposals: Proposal[] = [];
      for (let i = 0; i < 6; i++) {
        const recorded = await ledger.recordProposal(sampleProposal());
        if (recorded.ok) proposals.push(recorded.proposal);
      }
      const settled = await Promise.allSettled(
        proposals.map((p, i) => ledger.consume({ proposalId: p.proposalId, now: T0 + 1 }, (c) => (i === 2 ? [INVALID] : c.ok ? [about(c.proposal, 'dispatch')] : []))),
      );
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
      const states = await Promise.all(proposals.map(async (p) => (await ledger.getProposal(p.proposalId))?.state));
      expect(states).toEqual(['dispatched', 'dispatched', 'proposed', 'dispatched', 'dispatched', 'dispatched']);
      const records = await audit.read();
      expect(records.map((r) => r.proposalId)).toEqual(proposals.filter((_, i) => i !== 2).map((p) => p.proposalId));
      expect(verifyChain(records).ok).toBe(true);
    });

    it('concurrent audited writes and plain appends form one chain', async () => {
      const proposals: Proposal[] = [];
      for (let i = 0; i < 8; i++) {
        const recorded = await ledger.recordProposal(sampleProposal());
        if (recorded.ok) proposals.push(recorded.proposal);
      }
      const writes = proposals.flatMap((p, i) => [
        ledger.consume({ proposalId: p.proposalId, now: T0 + 1 }, (c) => (c.ok ? [about(c.proposal, 'dispatch')] : [])),
        audit.append({ type: 'rejection', at: T0 + i, actor: 'system', reason: `plain-${i}` }),
      ]);
      await Promise.all(writes);
      const records = await audit.read();
      expect(records).toHaveLength(16);
      expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      expect(verifyChain(records).ok).toBe(true);
    });

    describeAuditIfWritten(() => ({ ledger, audit }));
    describeAuditByStatus(() => ({ ledger, audit }));
  });
}
