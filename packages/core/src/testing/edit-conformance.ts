import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../digest.ts';
import type { ApprovalRequest, EditInput, LedgerStore, ProposalInput } from '../ledger/types.ts';
import { SAMPLE_T0 as T0, sampleProposal, sampleRequest, uid } from './ledger-samples.ts';

const EDITED_ARGS = '{"amount":5,"to":"alice"}';

/**
 * Approve-with-edits as one ledger operation (`recordEdit`), part of the ledger
 * conformance suite: the closed original, the edited call, its request and the editor's
 * approval are written together or not at all, and of concurrent edits one wins.
 */
export function describeEditConformance(getStore: () => LedgerStore): void {
  async function pendingOriginal(overrides: { expiresAt?: number } = {}) {
    const proposal = sampleProposal();
    await getStore().recordProposal(proposal);
    const request = await getStore().createApprovalRequest(sampleRequest(proposal.proposalId, overrides));
    return { proposal, request };
  }

  /** An edit of `original` by alice, approved by her unless `editorApproves` is false. */
  function editOf(
    original: { proposal: ProposalInput; request: ApprovalRequest },
    opts: { editorApproves?: boolean; requiredApprovals?: number; now?: number; edited?: Partial<ProposalInput>; requestId?: string } = {},
  ): EditInput {
    const now = opts.now ?? T0 + 1;
    const { proposalId: _id, callId: _call, ...call } = original.proposal;
    const proposalId = uid('edit');
    const proposal: ProposalInput = {
      ...call,
      proposalId,
      callId: `${original.proposal.callId}~edit-${proposalId}`,
      canonicalArgs: EDITED_ARGS,
      argsDigest: sha256Hex(EDITED_ARGS),
      parentProposalId: original.proposal.proposalId,
      createdAt: now,
      ...opts.edited,
    };
    return {
      original: { requestId: original.request.requestId, decision: { approver: 'alice', decision: 'deny', reason: 'edited', at: now, editedProposalId: proposalId } },
      proposal,
      request: sampleRequest(proposalId, { requestId: opts.requestId ?? uid('req'), createdAt: now, requiredApprovals: opts.requiredApprovals ?? 1 }),
      editorApproval: opts.editorApproves === false ? undefined : { decision: { approver: 'alice', decision: 'approve', at: now }, tokenIdIfApproved: uid('tok') },
      now,
    };
  }

  /** Nothing of `edit` is in the store, and the original request is as `before`. */
  async function expectNothingBehind(edit: EditInput, before: ApprovalRequest | undefined) {
    const store = getStore();
    expect(await store.getProposal(edit.proposal.proposalId)).toBeUndefined();
    expect(await store.findProposalByCall(edit.proposal.runId, edit.proposal.callId)).toBeUndefined();
    expect(await store.findApprovalRequestByProposal(edit.proposal.proposalId)).toBeUndefined();
    // The edit's request id names no request of the edit (it may be another's, taken before).
    expect((await store.getApprovalRequest(edit.request.requestId))?.proposalId).not.toBe(edit.proposal.proposalId);
    expect(await store.getApprovalRequest(edit.original.requestId)).toEqual(before);
  }

  describe('approve-with-edits (recordEdit)', () => {
    it('records the whole edit in one step: the original edited (not denied) naming the edit, the edited call, its request approved by the editor', async () => {
      const original = await pendingOriginal();
      const edit = editOf(original);
      const result = await getStore().recordEdit(edit);
      if (!result.ok) throw new Error(result.reason);
      expect(result.original).toMatchObject({ requestId: original.request.requestId, status: 'edited', decisions: [{ approver: 'alice', decision: 'deny', editedProposalId: edit.proposal.proposalId }] });
      expect(result.proposal).toMatchObject({ ...edit.proposal, state: 'proposed' });
      expect(result.request).toMatchObject({
        requestId: edit.request.requestId,
        proposalId: edit.proposal.proposalId,
        status: 'approved',
        tokenId: edit.editorApproval?.tokenIdIfApproved,
        approvedAt: edit.now,
        decisions: [{ approver: 'alice', decision: 'approve' }],
      });
      // What the store returned is what it holds.
      expect(await getStore().getApprovalRequest(original.request.requestId)).toEqual(result.original);
      expect(await getStore().getProposal(edit.proposal.proposalId)).toEqual(result.proposal);
      expect(await getStore().findApprovalRequestByProposal(edit.proposal.proposalId)).toEqual(result.request);
      // Listed as edited, never among the denied, and closed: no decision, revocation or consume opens it again.
      const listed = async (status: 'edited' | 'denied') => (await getStore().listApprovalRequests({ status }, edit.now)).map((r) => r.requestId);
      expect(await listed('edited')).toContain(original.request.requestId);
      expect(await listed('denied')).not.toContain(original.request.requestId);
      const late = await getStore().addDecision(original.request.requestId, { approver: 'bob', decision: 'approve', at: edit.now }, { now: edit.now, tokenIdIfApproved: 'late-token' });
      expect(late).toEqual({ ok: false, reason: 'already_decided' });
      expect(await getStore().revokeApproval(original.request.requestId, edit.now)).toBe(false);
      const consumed = await getStore().consume({ proposalId: original.proposal.proposalId, approval: { requestId: original.request.requestId, tokenId: 'late-token' }, now: edit.now });
      expect(consumed.ok).toBe(false);
      expect((await getStore().getApprovalRequest(original.request.requestId))?.status).toBe('edited');
    });

    it('without the editor, or short of n-of-m, the edited request waits pending (the editor counted once)', async () => {
      const alone = await getStore().recordEdit(editOf(await pendingOriginal(), { editorApproves: false }));
      expect(alone).toMatchObject({ ok: true, request: { status: 'pending', decisions: [] } });
      const twoOf = await getStore().recordEdit(editOf(await pendingOriginal(), { requiredApprovals: 2 }));
      expect(twoOf).toMatchObject({ ok: true, request: { status: 'pending', decisions: [{ approver: 'alice' }] } });
      if (twoOf.ok) expect(twoOf.request.tokenId).toBeUndefined();
    });

    it('an edit of a decided, expired or unknown request is refused and leaves nothing behind', async () => {
      const denied = await pendingOriginal();
      await getStore().addDecision(denied.request.requestId, { approver: 'bob', decision: 'deny', at: T0 + 1 }, { now: T0 + 1, tokenIdIfApproved: 't' });
      const approved = await pendingOriginal();
      await getStore().addDecision(approved.request.requestId, { approver: 'bob', decision: 'approve', at: T0 + 1 }, { now: T0 + 1, tokenIdIfApproved: 't' });
      const expired = await pendingOriginal({ expiresAt: T0 + 1_000 });
      const cases: [EditInput, string][] = [
        [editOf(denied, { now: T0 + 2 }), 'already_decided'],
        [editOf(approved, { now: T0 + 2 }), 'already_decided'],
        [editOf(expired, { now: T0 + 1_000 }), 'expired'],
      ];
      for (const [edit, reason] of cases) {
        const before = await getStore().getApprovalRequest(edit.original.requestId);
        expect(await getStore().recordEdit(edit)).toEqual({ ok: false, reason });
        await expectNothingBehind(edit, before);
      }
      const unknown = editOf(await pendingOriginal());
      unknown.original.requestId = 'missing-request';
      expect(await getStore().recordEdit(unknown)).toEqual({ ok: false, reason: 'not_found' });
      await expectNothingBehind(unknown, undefined);
    });

    it('a part that cannot be written (an id already taken) undoes the whole edit: the original stays pending', async () => {
      const original = await pendingOriginal();
      const other = await pendingOriginal();
      // The edited request's id is taken: found only after the close and the proposal.
      const requestTaken = editOf(original, { requestId: other.request.requestId });
      expect(await getStore().recordEdit(requestTaken)).toEqual({ ok: false, reason: 'conflict' });
      await expectNothingBehind(requestTaken, original.request);
      expect(await getStore().getApprovalRequest(other.request.requestId)).toEqual(other.request);
      // The edited call's (run, call) is taken by the original itself.
      const callTaken = editOf(original, { edited: { callId: original.proposal.callId } });
      expect(await getStore().recordEdit(callTaken)).toEqual({ ok: false, reason: 'conflict' });
      expect(await getStore().getProposal(callTaken.proposal.proposalId)).toBeUndefined();
      expect(await getStore().getApprovalRequest(original.request.requestId)).toEqual(original.request);
      // And the request still takes an edit afterwards.
      expect(await getStore().recordEdit(editOf(original))).toMatchObject({ ok: true });
    });

    it('parts that do not describe one edit of this call are refused (invalid_edit), nothing written', async () => {
      const original = await pendingOriginal();
      const stranger = sampleProposal();
      await getStore().recordProposal(stranger);
      const bad: EditInput[] = [
        editOf(original, { edited: { toolName: 'delete_everything' } }),
        editOf(original, { edited: { principal: 'user:other' } }),
        editOf(original, { edited: { runId: stranger.runId } }),
        editOf(original, { edited: { agent: 'agent-b' } }),
        editOf(original, { edited: { parentProposalId: stranger.proposalId } }),
      ];
      const approvingClose = editOf(original);
      approvingClose.original.decision.decision = 'approve';
      const unlinked = editOf(original);
      unlinked.original.decision.editedProposalId = 'some-other-proposal';
      const denyingEditor = editOf(original);
      if (denyingEditor.editorApproval) denyingEditor.editorApproval.decision.decision = 'deny';
      const otherRequest = editOf(original);
      otherRequest.request.proposalId = original.proposal.proposalId;
      for (const edit of [...bad, approvingClose, unlinked, denyingEditor, otherRequest]) {
        expect(await getStore().recordEdit(edit)).toEqual({ ok: false, reason: 'invalid_edit' });
        await expectNothingBehind(edit, original.request);
      }
    });

    it('concurrent edits of one request: exactly one takes effect, the others are refused with nothing written', async () => {
      for (let round = 0; round < 3; round++) {
        const original = await pendingOriginal();
        const edits = Array.from({ length: 6 }, () => editOf(original));
        const results = await Promise.all(edits.map((edit) => getStore().recordEdit(edit)));
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        expect(results.filter((r) => !r.ok && r.reason === 'already_decided')).toHaveLength(5);
        const stored = await Promise.all(edits.map((edit) => getStore().getProposal(edit.proposal.proposalId)));
        expect(stored.filter((p) => p !== undefined)).toHaveLength(1);
        const requests = await Promise.all(edits.map((edit) => getStore().findApprovalRequestByProposal(edit.proposal.proposalId)));
        expect(requests.filter((r) => r !== undefined)).toHaveLength(1);
        expect((await getStore().getApprovalRequest(original.request.requestId))?.decisions).toHaveLength(1);
      }
    });

    it('an edit racing a plain decision on the same request: exactly one of them takes effect', async () => {
      for (let round = 0; round < 3; round++) {
        const original = await pendingOriginal();
        const edit = editOf(original);
        const [edited, decided] = await Promise.all([
          getStore().recordEdit(edit),
          getStore().addDecision(original.request.requestId, { approver: 'bob', decision: 'approve', at: T0 + 1 }, { now: T0 + 1, tokenIdIfApproved: uid('tok') }),
        ]);
        expect([edited.ok, decided.ok].filter(Boolean)).toHaveLength(1);
        const after = await getStore().getApprovalRequest(original.request.requestId);
        expect(after?.decisions).toHaveLength(1);
        if (!edited.ok) await expectNothingBehind(edit, after);
      }
    });
  });
}
