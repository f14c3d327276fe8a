import { describe, expect, it } from 'vitest';
import type { AuditEvent, AuditLog } from '../../audit/types.ts';
import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import { loadPolicy } from '../../policy/load.ts';
import { FINANCE, makeGateFixture, requestView, listedFor } from '../../testing/gate-fixture.ts';
import type { Approver } from './eligibility.ts';

/** Two approve rules for one tool: small transfers need finance, large ones two CFOs; huge ones are denied. */
const TIERED_POLICY = `
version: 1
rules:
  - id: huge-transfers
    tool: transfer
    when: { type: object, properties: { amount: { type: number, minimum: 10000000 } }, required: [amount] }
    verdict: deny
  - id: large-transfers
    tool: transfer
    when: { type: object, properties: { amount: { type: number, minimum: 10000 } }, required: [amount] }
    verdict: approve
    approval:
      approvers: { roles: [cfo] }
      required: 2
      ttlSeconds: 120
  - id: tiny-transfers
    tool: transfer
    when: { type: object, properties: { amount: { type: number, maximum: 1 } }, required: [amount] }
    verdict: allow
  - id: transfers
    tool: transfer
    verdict: approve
    approval:
      approvers: { roles: [finance], principalSelf: false }
      ttlSeconds: 600
`;

const CFO_1: Approver = { id: 'carla', roles: ['cfo'] };
const CFO_2: Approver = { id: 'chen', roles: ['cfo'] };
/** Holds both roles, so may decide either rule. */
const FINANCE_CFO: Approver = { id: 'frank', roles: ['finance', 'cfo'] };

async function pendingTransfer(f: ReturnType<typeof makeGateFixture>, args = '{"amount":500,"to":"alice"}', principal = 'user:42') {
  const call = f.call({ arguments: args, principal });
  const proposed = await f.gate.propose(call);
  if (proposed.status !== 'approval_required') throw new Error(`expected approval_required, got ${proposed.status}`);
  return { call, requestId: proposed.requestId, proposalId: proposed.proposalId };
}

describe('approve-with-edits: the edited call gets its own policy verdict', () => {
  it('500 → 1,000,000 under a stricter rule: the new request carries that rule; a finance editor cannot approve it', async () => {
    const f = makeGateFixture({ policy: loadPolicy(TIERED_POLICY, 'yaml') });
    const { call, requestId } = await pendingTransfer(f);
    const decided = await f.gate.approvals.decide(FINANCE, {
      requestId,
      decision: 'approve',
      editedArguments: { amount: 1_000_000, to: 'alice' },
    });
    if (!decided.ok || decided.editedRequest === undefined || decided.editedProposal === undefined) throw new Error('expected an edit');
    const edited = decided.editedRequest;
    expect(edited).toMatchObject({ status: 'pending', ruleId: 'large-transfers', requiredApprovals: 2, eligible: { roles: ['cfo'] }, decisions: [] });
    expect(edited.expiresAt).toBe(f.clock() + 120_000);
    expect(decided.request.status).toBe('edited'); // the original is closed, linked to the edit
    expect(await f.gate.approvals.token(edited.requestId)).toMatchObject({ ok: false, reason: 'not_approved' });
    const editedCall = { ...call, callId: decided.editedProposal.callId, arguments: undefined };
    expect(await f.gate.dispatch({ ...f.dispatchFor(editedCall), proposalId: decided.editedProposal.proposalId })).toMatchObject({ status: 'approval_required', requestId: edited.requestId });

    // Only two CFOs can approve it; the finance editor is not among the eligible.
    expect(await f.gate.approvals.decide(FINANCE, { requestId: edited.requestId, decision: 'approve' })).toMatchObject({ ok: false, reason: 'not_eligible' });
    expect((await listedFor(f.gate, FINANCE)).map((v) => v.request.requestId)).not.toContain(edited.requestId);
    await f.gate.approvals.decide(CFO_1, { requestId: edited.requestId, decision: 'approve' });
    expect(await f.gate.approvals.token(edited.requestId)).toMatchObject({ ok: false, reason: 'not_approved' });
    await f.gate.approvals.decide(CFO_2, { requestId: edited.requestId, decision: 'approve' });
    const issued = await f.gate.approvals.token(edited.requestId);
    if (!issued.ok) throw new Error('expected a token');
    expect(await f.gate.dispatch({ ...f.dispatchFor(editedCall, issued.token), proposalId: decided.editedProposal.proposalId })).toMatchObject({ status: 'executed', result: { transferred: 1_000_000 } });
    expect(f.executions).toHaveLength(1);
  });

  it("an editor eligible under the new rule counts as one of its approvals, and the deadline never outlives the original's", async () => {
    const f = makeGateFixture({ policy: loadPolicy(TIERED_POLICY, 'yaml') });
    const { requestId } = await pendingTransfer(f);
    const original = await requestView(f.gate, requestId);
    f.clock.advance(550_000); // 50 s left on the original; the new rule allows 120 s
    const decided = await f.gate.approvals.decide(FINANCE_CFO, { requestId, decision: 'approve', editedArguments: { amount: 20_000, to: 'alice' } });
    if (!decided.ok || decided.editedRequest === undefined) throw new Error('expected an edit');
    expect(decided.editedRequest).toMatchObject({ status: 'pending', requiredApprovals: 2, decisions: [{ approver: 'frank', decision: 'approve' }] });
    expect(decided.editedRequest.expiresAt).toBe(original?.request.expiresAt);
  });

  it('an edit to an amount policy denies is refused, audited, and leaves the original pending', async () => {
    const f = makeGateFixture({ policy: loadPolicy(TIERED_POLICY, 'yaml') });
    const { requestId } = await pendingTransfer(f);
    const before = (await f.audit.read()).length;
    const refused = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: { amount: 50_000_000, to: 'alice' } });
    expect(refused).toMatchObject({ ok: false, reason: 'edit_denied_by_policy' });
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
    const added = (await f.audit.read()).slice(before);
    expect(added).toEqual([expect.objectContaining({ type: 'rejection', reason: 'edit_denied_by_policy', actor: 'fiona', requestId })]);
    // The original can still be approved as it was.
    expect(await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve' })).toMatchObject({ ok: true, request: { status: 'approved' } });
  });

  it('an edit policy would allow outright still needs the editor recorded: it is an approved request, not a silent free call', async () => {
    const f = makeGateFixture({ policy: loadPolicy(TIERED_POLICY, 'yaml') });
    const { requestId } = await pendingTransfer(f);
    const decided = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: { amount: 1, to: 'alice' } });
    if (!decided.ok || decided.editedRequest === undefined) throw new Error('expected an edit');
    expect(decided.editedRequest).toMatchObject({ status: 'approved', ruleId: 'transfers', decisions: [{ approver: 'fiona', decision: 'approve' }] });
    const decisions = (await f.audit.read()).filter((r) => r.type === 'decision' && r.requestId === decided.editedRequest?.requestId);
    expect(decisions).toHaveLength(1);
  });

  it('edited arguments must fit the pinned input schema; the problems are named', async () => {
    const f = makeGateFixture();
    const { requestId } = await pendingTransfer(f);
    const refused = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: { amount: 'all of it', to: 42 } });
    expect(refused).toMatchObject({ ok: false, reason: 'invalid_arguments' });
    if (refused.ok) throw new Error('unreachable');
    expect(refused.problems?.map((p) => p.pointer).sort()).toEqual(['/amount', '/to']);
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
    expect(await f.ledger.listApprovalRequests({}, f.clock())).toHaveLength(1); // no edited request was created
  });
});

describe('principalSelf: the principal a call acts for never approves it unless the rule says so', () => {
  const fiona: Approver = { id: 'fiona', roles: ['finance'] };

  it('approver id equal to the principal: refused under principalSelf:false, even with the role', async () => {
    const f = makeGateFixture();
    const { requestId } = await pendingTransfer(f, undefined, 'fiona');
    expect(await f.gate.approvals.decide(fiona, { requestId, decision: 'approve' })).toMatchObject({ ok: false, reason: 'not_eligible' });
    expect(await listedFor(f.gate, fiona)).toEqual([]);
    expect(await f.gate.approvals.decide({ id: 'felix', roles: ['finance'] }, { requestId, decision: 'approve' })).toMatchObject({ ok: true });
  });

  it('an approver mapped to the principal (auth-file principals) is refused; the mapping is per principal', async () => {
    const f = makeGateFixture();
    const { requestId } = await pendingTransfer(f, undefined, 'user:42');
    const fionaAsUser42: Approver = { id: 'fiona@corp', roles: ['finance'], principals: ['user:42'] };
    expect(await f.gate.approvals.decide(fionaAsUser42, { requestId, decision: 'approve' })).toMatchObject({ ok: false, reason: 'not_eligible' });
    expect(await f.gate.approvals.revoke(fionaAsUser42, requestId)).toMatchObject({ ok: false, reason: 'not_eligible' });
    const other = await pendingTransfer(f, undefined, 'user:43');
    expect((await listedFor(f.gate, fionaAsUser42)).map((v) => v.request.requestId)).toEqual([other.requestId]);
    expect(await f.gate.approvals.decide(fionaAsUser42, { requestId: other.requestId, decision: 'approve' })).toMatchObject({ ok: true });
  });

  it('an approver named in the rule is still refused for their own call', async () => {
    const policy = loadPolicy(
      'version: 1\nrules:\n  - id: t\n    tool: transfer\n    verdict: approve\n    approval:\n      approvers: { approvers: [fiona, felix] }\n',
      'yaml',
    );
    const f = makeGateFixture({ policy });
    const { requestId } = await pendingTransfer(f, undefined, 'fiona');
    expect(await f.gate.approvals.decide({ id: 'fiona' }, { requestId, decision: 'approve' })).toMatchObject({ ok: false, reason: 'not_eligible' });
  });

  it('under principalSelf:true the principal may approve their own call', async () => {
    const policy = loadPolicy(
      'version: 1\nrules:\n  - id: t\n    tool: transfer\n    verdict: approve\n    approval:\n      approvers: { roles: [finance], principalSelf: true }\n',
      'yaml',
    );
    const f = makeGateFixture({ policy });
    const own = await pendingTransfer(f, undefined, 'fiona');
    expect((await listedFor(f.gate, fiona)).map((v) => v.request.requestId)).toEqual([own.requestId]);
    expect(await f.gate.approvals.decide(fiona, { requestId: own.requestId, decision: 'approve' })).toMatchObject({ ok: true, request: { status: 'approved' } });
    const mapped = await pendingTransfer(f, undefined, 'user:42');
    expect(await f.gate.approvals.decide({ id: 'someone', principals: ['user:42'] }, { requestId: mapped.requestId, decision: 'approve' })).toMatchObject({ ok: true });
  });
});

describe('decision values', () => {
  it.each([['reject'], ['DENY'], [undefined], [1], [null]])('%s is refused with invalid_decision and changes nothing', async (value) => {
    const f = makeGateFixture();
    const { requestId } = await pendingTransfer(f);
    const input = { requestId, decision: value } as unknown as Parameters<typeof f.gate.approvals.decide>[1];
    expect(await f.gate.approvals.decide(FINANCE, input)).toMatchObject({ ok: false, reason: 'invalid_decision' });
    expect(await requestView(f.gate, requestId)).toMatchObject({ status: 'pending', request: { decisions: [] } });
    expect(await f.gate.approvals.token(requestId)).toMatchObject({ ok: false, reason: 'not_approved' });
  });
});

/** An audit log that fails every append after `okAppends` succeeded. */
function failingAudit(okAppends: number): AuditLog & { failing: () => void } {
  const inner = new MemoryAuditLog();
  let remaining = okAppends;
  return {
    append: async (event: AuditEvent) => {
      if (remaining <= 0) throw new Error('audit store down');
      remaining -= 1;
      return inner.append(event);
    },
    read: (opts) => inner.read(opts),
    head: () => inner.head(),
    failing: () => {
      remaining = 0;
    },
  };
}

describe('a decision whose audit append fails reports what happened', () => {
  it('the decision took effect: ok with auditRecorded:false, never store_unavailable', async () => {
    const audit = failingAudit(Number.POSITIVE_INFINITY);
    const f = makeGateFixture({ audit });
    const { requestId } = await pendingTransfer(f);
    audit.failing();
    const decided = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve' });
    expect(decided).toMatchObject({ ok: true, auditRecorded: false, request: { status: 'approved' } });
    // The ledger holds the decision: the request is approved, as reported.
    expect((await requestView(f.gate, requestId))?.status).toBe('approved');
  });

  it('an audited decision has no auditRecorded flag', async () => {
    const f = makeGateFixture();
    const { requestId } = await pendingTransfer(f);
    const decided = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve' });
    expect(decided.ok && 'auditRecorded' in decided).toBe(false);
  });

  it('approve-with-edits under an audit outage completes the edit and says the audit is missing', async () => {
    const audit = failingAudit(Number.POSITIVE_INFINITY);
    const f = makeGateFixture({ audit });
    const { requestId } = await pendingTransfer(f);
    audit.failing();
    const decided = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: { amount: 400, to: 'alice' } });
    expect(decided).toMatchObject({ ok: true, auditRecorded: false, request: { status: 'edited' }, editedRequest: { status: 'approved' } });
  });
});

describe('listFor filters eligibility in the store', () => {
  it('1,001 newer requests for other approvers do not hide the one this approver may decide', async () => {
    const f = makeGateFixture();
    const { requestId } = await pendingTransfer(f);
    for (let i = 0; i < 1001; i++) {
      f.clock.advance(1);
      await f.gate.propose(f.call({ toolName: 'deploy', arguments: { service: `s${i}` } }));
    }
    expect((await listedFor(f.gate, FINANCE)).map((v) => v.request.requestId)).toEqual([requestId]);
  });
});
