import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../policy/load.ts';
import { PASSKEY_POLICY_YAML as POLICY } from '../../testing/passkey-policy.ts';
import { passkeyChallenge, passkeyDecisionClaims } from '../../passkey/decision-claims.ts';
import { checkPasskeyEvidence } from '../../passkey/evidence-check.ts';
import { registrationEvent } from '../../passkey/change-events.ts';
import { testDevice, testOfflineCheck, testVerifier } from '../../passkey/test-device.test-helper.ts';
import { openedRequestOf } from '../../audit/step-facts.ts';
import type { AuditLog, AuditRecord } from '../../audit/types.ts';
import { decisionEvent } from './audit-decision.ts';
import { FINANCE, makeGateFixture, requestView } from '../../testing/gate-fixture.ts';


const fiona = testDevice('fiona');
const mallory = testDevice('mallory');
const passkeys = testVerifier([fiona, mallory]);

async function setup() {
  const f = makeGateFixture({ policy: loadPolicy(POLICY, 'yaml') });
  await registerDevices(f.audit);
  const pending = async (args = '{"amount":500,"to":"alice"}') => {
    const call = f.call({ arguments: args });
    const proposed = await f.gate.propose(call);
    if (proposed.status !== 'approval_required') throw new Error(`expected approval_required, got ${proposed.status}`);
    const view = await requestView(f.gate, proposed.requestId);
    if (view === undefined) throw new Error('no request');
    return { call, requestId: proposed.requestId, proposalId: proposed.proposalId, view };
  };
  /** What an honest page has the approver's device sign: claims rebuilt from the ledger. */
  const signFor = async (requestId: string, decision: 'approve' | 'deny', editedArgsDigest?: string, device = fiona) => {
    const view = await requestView(f.gate, requestId);
    if (view === undefined) throw new Error('no request');
    return device.sign(passkeyChallenge(passkeyDecisionClaims(view.proposal, view.request, { approver: device.owner, decision, editedArgsDigest })));
  };
  return { f, pending, signFor };
}

describe('passkey rule: a decision counts only with the approver’s passkey over exactly this call', () => {
  it('the request records the rule when it opens; a later policy change does not weaken it', async () => {
    const { f, pending } = await setup();
    const { requestId, view } = await pending();
    expect(view.request.passkey).toBe('required');
    const audit = await f.audit.read();
    expect(audit.map(openedRequestOf).find((r) => r !== undefined)?.detail).toMatchObject({ passkey: 'required' });
    // The policy object is swapped for one without the rule: the pending request keeps it.
    const relaxed = makeGateFixture({ policy: loadPolicy(POLICY.replace('      passkey: required\n', ''), 'yaml'), ledger: f.ledger, audit: f.audit });
    expect(await relaxed.gate.approvals.decide(FINANCE, { requestId, decision: 'approve' })).toMatchObject({ ok: false, reason: 'passkey_required' });
  });

  it('refuses a decision without an assertion, and with no verifier configured', async () => {
    const { f, pending, signFor } = await setup();
    const { requestId } = await pending();
    expect(await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve' }, { passkeys })).toMatchObject({ ok: false, reason: 'passkey_required' });
    expect(await f.gate.approvals.decide(FINANCE, { requestId, decision: 'deny' }, { passkeys })).toMatchObject({ ok: false, reason: 'passkey_required' });
    const assertion = await signFor(requestId, 'approve');
    expect(await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', passkeyAssertion: assertion })).toMatchObject({ ok: false, reason: 'passkey_invalid' });
    expect((await requestView(f.gate, requestId))?.request.decisions).toEqual([]);
  });

  it('a valid assertion approves; the call runs once; the assertion is kept with the decision and in its audit record', async () => {
    const { f, pending, signFor } = await setup();
    const { call, requestId, proposalId } = await pending();
    const assertion = await signFor(requestId, 'approve');
    const decided = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', passkeyAssertion: assertion }, { passkeys });
    expect(decided).toMatchObject({ ok: true, request: { status: 'approved' } });
    const stored = (await requestView(f.gate, requestId))?.request.decisions[0];
    expect(stored?.passkey).toMatchObject({ credentialId: fiona.credentialId, clientDataJSON: assertion.clientDataJSON, rpId: 'localhost' });
    const record = (await f.audit.read()).find((r) => r.type === 'decision');
    expect(record?.detail?.passkey).toMatchObject({ credentialId: fiona.credentialId, signature: assertion.signature });
    const token = await f.gate.approvals.token(requestId);
    if (!token.ok) throw new Error('no token');
    expect(await f.gate.dispatch({ ...f.dispatchFor(call, token.token), proposalId })).toMatchObject({ status: 'executed' });
    expect(await f.gate.dispatch({ ...f.dispatchFor(call, token.token), proposalId })).not.toMatchObject({ status: 'executed' });
    expect(f.executions).toHaveLength(1);
  });

  it('refuses an assertion made for another call, for the other decision, or by another approver’s device', async () => {
    const { f, pending, signFor } = await setup();
    const a = await pending('{"amount":500,"to":"alice"}');
    const b = await pending('{"amount":500,"to":"alice"}');
    const forA = await signFor(a.requestId, 'approve');
    expect(await f.gate.approvals.decide(FINANCE, { requestId: b.requestId, decision: 'approve', passkeyAssertion: forA }, { passkeys })).toMatchObject({
      ok: false,
      reason: 'passkey_invalid',
    });
    const denyA = await signFor(a.requestId, 'deny');
    expect(await f.gate.approvals.decide(FINANCE, { requestId: a.requestId, decision: 'approve', passkeyAssertion: denyA }, { passkeys })).toMatchObject({
      ok: false,
      reason: 'passkey_invalid',
    });
    const byMallory = await signFor(a.requestId, 'approve', undefined, mallory);
    expect(await f.gate.approvals.decide(FINANCE, { requestId: a.requestId, decision: 'approve', passkeyAssertion: byMallory }, { passkeys })).toMatchObject({
      ok: false,
      reason: 'passkey_invalid',
    });
    // A malformed assertion is a typed refusal, never a crash.
    for (const junk of ['x', 42, [], { credentialId: 'a' }, { ...forA, extra: 'x' }, { ...forA, signature: 'not base64url!' }]) {
      expect(await f.gate.approvals.decide(FINANCE, { requestId: a.requestId, decision: 'approve', passkeyAssertion: junk }, { passkeys })).toMatchObject({
        ok: false,
        reason: 'passkey_invalid',
      });
    }
    expect(f.executions).toHaveLength(0);
  });

  it('an edit needs an assertion naming the edited arguments; the edited call needs its own signed approval', async () => {
    const { f, pending, signFor } = await setup();
    const { requestId } = await pending();
    const edited = { amount: 400, to: 'alice' };
    const plainApproval = await signFor(requestId, 'approve');
    expect(
      await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: edited, passkeyAssertion: plainApproval }, { passkeys }),
    ).toMatchObject({ ok: false, reason: 'passkey_invalid' });
    const { canonicalizeArguments } = await import('../../canonical/canonicalize-arguments.ts');
    const otherEdit = await signFor(requestId, 'approve', canonicalizeArguments({ amount: 999, to: 'mallory' }).digest);
    expect(
      await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: edited, passkeyAssertion: otherEdit }, { passkeys }),
    ).toMatchObject({ ok: false, reason: 'passkey_invalid' });
    const forEdit = await signFor(requestId, 'approve', canonicalizeArguments(edited).digest);
    const decided = await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: edited, passkeyAssertion: forEdit }, { passkeys });
    if (!decided.ok || decided.editedRequest === undefined) throw new Error(`expected an edit, got ${JSON.stringify(decided)}`);
    // The edited call's request keeps the rule and waits for its own signed approval.
    expect(decided.editedRequest).toMatchObject({ status: 'pending', passkey: 'required', decisions: [] });
    const editedId = decided.editedRequest.requestId;
    expect(await f.gate.approvals.decide(FINANCE, { requestId: editedId, decision: 'approve', passkeyAssertion: forEdit }, { passkeys })).toMatchObject({
      ok: false,
      reason: 'passkey_invalid',
    });
    const approveEdited = await signFor(editedId, 'approve');
    expect(await f.gate.approvals.decide(FINANCE, { requestId: editedId, decision: 'approve', passkeyAssertion: approveEdited }, { passkeys })).toMatchObject({
      ok: true,
      request: { status: 'approved' },
    });
    const report = await checkPasskeyEvidence(await f.audit.read(), testOfflineCheck);
    expect(report).toMatchObject({ verified: 2, problems: [] });
  });

  it('an expired request takes no decision, even with an assertion made in time', async () => {
    const { f, pending, signFor } = await setup();
    const { requestId } = await pending();
    const assertion = await signFor(requestId, 'approve');
    f.clock.advance(901_000); // past the default 15-minute deadline
    expect(await f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', passkeyAssertion: assertion }, { passkeys })).toMatchObject({
      ok: false,
      reason: 'expired',
    });
  });

  it('rules without a passkey need none, and an assertion sent anyway is not recorded', async () => {
    const { f, pending, signFor } = await setup();
    const proposed = await f.gate.propose(f.call({ toolName: 'deploy', arguments: '{}' }));
    if (proposed.status !== 'approval_required') throw new Error('expected approval_required');
    const { requestId: transferId } = await pending();
    const stray = await signFor(transferId, 'approve');
    expect(await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve', passkeyAssertion: stray })).toMatchObject({ ok: true });
    expect((await requestView(f.gate, proposed.requestId))?.request.decisions[0]?.passkey).toBeUndefined();
  });
});

describe('checkPasskeyEvidence: what `audit verify` holds a trail to', () => {
  it('passes honest passkey decisions and catches a decision written with the server’s keys but no assertion', async () => {
    const { f, pending, signFor } = await setup();
    const honest = await pending();
    await f.gate.approvals.decide(FINANCE, { requestId: honest.requestId, decision: 'approve', passkeyAssertion: await signFor(honest.requestId, 'approve') }, { passkeys });
    expect(await checkPasskeyEvidence(await f.audit.read(), testOfflineCheck)).toMatchObject({ verified: 1, registered: 2, problems: [] });

    // Someone with the server's secrets and write access to the store, but not fiona's device.
    const forged = await pending();
    const decision = { approver: 'fiona', decision: 'approve' as const, reason: undefined, at: f.clock() };
    const added = await f.ledger.addDecision(forged.requestId, decision, {
      now: f.clock(),
      tokenIdIfApproved: 'forged-token',
      audit: (r) => (r.ok ? [decisionEvent(f.keyring, forged.view.proposal, r.request, decision)] : []),
    });
    expect(added.ok).toBe(true);
    const report = await checkPasskeyEvidence(await f.audit.read(), testOfflineCheck);
    expect(report.problems).toEqual([{ seq: expect.any(Number), reason: expect.stringMatching(/^passkey_missing/) }]);
  });

  it('catches an assertion moved to another decision record, and one whose credential belongs to someone else', async () => {
    const { f, pending, signFor } = await setup();
    const a = await pending();
    await f.gate.approvals.decide(FINANCE, { requestId: a.requestId, decision: 'approve', passkeyAssertion: await signFor(a.requestId, 'approve') }, { passkeys });
    const records = await f.audit.read();
    const decision = records.find((r) => r.type === 'decision') as AuditRecord;
    const moved: AuditRecord = { ...decision, detail: { ...decision.detail, decision: 'deny' } };
    // The server-signed decision record still says approve: the two disagree before the passkey is even checked.
    expect((await checkPasskeyEvidence([...records.filter((r) => r !== decision), moved], testOfflineCheck)).problems[0]?.reason).toMatch(
      /^passkey_unbound: .* differ in dec$/,
    );
    // Tampered records are reported, never a crash.
    // The request opened with its proposal record (format 2), which holds its deadline.
    const requested = records.find((r) => openedRequestOf(r) !== undefined) as AuditRecord;
    for (const expiresAt of [Number.NaN, 'soon', null]) {
      const tampered = records.map((r) => (r === requested ? { ...r, detail: { ...r.detail, expiresAt } } : r)) as AuditRecord[];
      expect((await checkPasskeyEvidence(tampered, testOfflineCheck)).problems[0]?.reason).toMatch(/^passkey_unbound/);
    }
    const notADecision: AuditRecord = { ...decision, detail: { ...decision.detail, decision: 'maybe' } };
    expect((await checkPasskeyEvidence([...records.filter((r) => r !== decision), notADecision], testOfflineCheck)).problems[0]?.reason).toMatch(
      /^passkey_unbound/,
    );
    const asMallory: AuditRecord = { ...decision, actor: 'mallory' };
    expect((await checkPasskeyEvidence([...records.filter((r) => r !== decision), asMallory], testOfflineCheck)).problems[0]?.reason).toMatch(
      /^passkey_wrong_approver/,
    );
  });
});

/** The test devices' keys, registered in the chain as the server does (audit verify reads keys from there). */
async function registerDevices(audit: AuditLog) {
  for (const d of [fiona, mallory]) {
    await audit.append(registrationEvent({ credentialId: d.credentialId, approver: d.owner, publicKey: `pk-${d.credentialId}`, counter: 0, label: d.owner, createdAt: 0 }, { challenge: 'AA', authorizedBy: 'first' }));
  }
}
