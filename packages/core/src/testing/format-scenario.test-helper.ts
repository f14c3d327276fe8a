import { canonicalizeArguments } from '../canonical/canonicalize-arguments.ts';
import { passkeyChallenge, passkeyDecisionClaims } from '../passkey/decision-claims.ts';
import { registrationEvent } from '../passkey/change-events.ts';
import { testDevice, testVerifier } from '../passkey/test-device.test-helper.ts';
import { loadPolicy } from '../policy/load.ts';
import { FINANCE, makeGateFixture, requestView } from './gate-fixture.ts';
import { PASSKEY_POLICY_YAML } from './passkey-policy.ts';
import type { AuditRecord } from '../audit/types.ts';

// One history that makes every kind of step the audit format changed: an allowed call that
// runs, a denied call, a passkey-approved call that runs, an approve-with-edits under the
// passkey rule whose edited call is approved and runs, and a denied request. Written with
// the format 1 code into audit/fixtures/format-1-chain.jsonl (see audit/record-format.test.ts), and
// replayed live with the current code, so both formats tell the same facts.

// The passkey suites' policy, plus an allowed read and a denied delete.
const POLICY = `${PASSKEY_POLICY_YAML}  - id: reads
    tool: read_file
    verdict: allow
  - id: no-deletes
    tool: delete_repo
    verdict: deny
`;

export const fiona = testDevice('fiona');

export async function formatScenario(): Promise<AuditRecord[]> {
  const f = makeGateFixture({ policy: loadPolicy(POLICY, 'yaml') });
  const passkeys = testVerifier([fiona]);
  await f.audit.append(registrationEvent({ credentialId: fiona.credentialId, approver: fiona.owner, publicKey: `pk-${fiona.credentialId}`, counter: 0, label: fiona.owner, createdAt: 0 }, { challenge: 'AA', authorizedBy: 'first' }));
  const signFor = async (requestId: string, decision: 'approve' | 'deny', editedArgsDigest?: string) => {
    const view = await requestView(f.gate, requestId);
    if (view === undefined) throw new Error('no request');
    return fiona.sign(passkeyChallenge(passkeyDecisionClaims(view.proposal, view.request, { approver: fiona.owner, decision, editedArgsDigest })));
  };
  const expect = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`scenario: ${what}`);
  };

  const read = f.call({ toolName: 'read_file', arguments: '{"path":"a"}' });
  expect((await f.gate.propose(read)).status === 'allowed', 'read allowed');
  expect((await f.gate.dispatch(f.dispatchFor(read))).status === 'executed', 'read executed');

  expect((await f.gate.propose(f.call({ toolName: 'delete_repo', arguments: '{"repo":"r"}' }))).status === 'denied', 'delete denied');

  const transfer = f.call({ arguments: '{"amount":500,"to":"alice"}' });
  const proposed = await f.gate.propose(transfer);
  if (proposed.status !== 'approval_required') throw new Error('scenario: transfer needs approval');
  const approved = await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve', passkeyAssertion: await signFor(proposed.requestId, 'approve') }, { passkeys });
  expect(approved.ok, 'transfer approved');
  const token = await f.gate.approvals.token(proposed.requestId);
  if (!token.ok) throw new Error('scenario: transfer token');
  expect((await f.gate.dispatch(f.dispatchFor(transfer, token.token))).status === 'executed', 'transfer executed');

  const toEdit = f.call({ arguments: '{"amount":900,"to":"alice"}' });
  const pending = await f.gate.propose(toEdit);
  if (pending.status !== 'approval_required') throw new Error('scenario: edit needs approval');
  const edited = { amount: 400, to: 'alice' };
  const edit = await f.gate.approvals.decide(
    FINANCE,
    { requestId: pending.requestId, decision: 'approve', editedArguments: edited, passkeyAssertion: await signFor(pending.requestId, 'approve', canonicalizeArguments(edited).digest) },
    { passkeys },
  );
  if (!edit.ok || edit.editedRequest === undefined) throw new Error('scenario: edit');
  const editedRequestId = edit.editedRequest.requestId;
  expect((await f.gate.approvals.decide(FINANCE, { requestId: editedRequestId, decision: 'approve', passkeyAssertion: await signFor(editedRequestId, 'approve') }, { passkeys })).ok, 'edited approved');
  const editedToken = await f.gate.approvals.token(editedRequestId);
  if (!editedToken.ok) throw new Error('scenario: edited token');
  expect((await f.gate.authorize({ proposalId: edit.editedRequest.proposalId, token: editedToken.token })).status === 'authorized', 'edited authorized');

  const deploy = await f.gate.propose(f.call({ toolName: 'deploy', arguments: '{}' }));
  if (deploy.status !== 'approval_required') throw new Error('scenario: deploy needs approval');
  expect((await f.gate.approvals.decide(FINANCE, { requestId: deploy.requestId, decision: 'deny', reason: 'not today' })).ok, 'deploy denied');
  return f.audit.read();
}
