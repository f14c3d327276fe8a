import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { canonicalizeArguments } from '@countersign/core/canonical';
import type { RequestView } from '@countersign/core/gate';
import { evidenceJson, type PasskeyEvidence, passkeyChallenge, passkeyDecisionClaims, registrationEvent } from '@countersign/core/passkey';
import { FIXTURE_SECRET } from '@countersign/core/testing';
import { signDecisionRecord } from '@countersign/core/token';
import { afterAll, describe, expect, it } from 'vitest';
import { webauthnVerifier } from '@countersign/server';
import { softAuthenticator } from '@countersign/server/test-kit';
import { runCaptured } from './testing/capture-io.ts';
import { signedPasskeyStore, verifyPasskeysJson } from './testing/signed-passkey-store.ts';

const cwd = mkdtempSync(join(tmpdir(), 'countersign-cli-passkey-forgeries-'));
const keyFile = join(cwd, 'master.key');
writeFileSync(keyFile, `${FIXTURE_SECRET.toString('hex')}\n`, { mode: 0o600 });
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

type Store = Awaited<ReturnType<typeof signedPasskeyStore>>;

/**
 * What someone with the master secret and write access to the store (not fiona's device)
 * writes: a decision on `view`'s request, signed with the real server key exactly as the
 * gate would, carrying `passkey` and the extra detail given.
 */
async function forgeDecision(s: Store, view: RequestView, approver: string, passkey: PasskeyEvidence, extra: Record<string, unknown> = {}) {
  const at = s.fx.clock();
  const decision = { approver, decision: 'approve' as const, reason: undefined, at, passkey };
  const added = await s.store.ledger.addDecision(view.request.requestId, decision, {
    now: at,
    tokenIdIfApproved: `forged-${at}`,
    audit: (r) => {
      if (!r.ok) return [];
      const p = view.proposal;
      const claims = { run: p.runId, sid: p.sessionId, call: p.callId, tool: p.toolName, def: p.definitionDigest ?? null, args: p.argsDigest, sub: p.principal };
      const record = signDecisionRecord({ ...claims, req: r.request.requestId, prop: p.proposalId, apr: approver, dec: 'approve', rsn: null, edit: null, at }, s.fx.keyring);
      const about = { runId: p.runId, sessionId: p.sessionId, callId: p.callId, proposalId: p.proposalId, toolName: p.toolName, argsDigest: p.argsDigest };
      const detail = { decision: 'approve', status: r.request.status, record, passkey: evidenceJson(passkey), ...extra };
      return [{ type: 'decision', at, ...about, requestId: r.request.requestId, actor: approver, detail }];
    },
  });
  expect(added).toMatchObject({ ok: true, request: { status: 'approved' } });
}

const evidenceOf = (device: ReturnType<typeof softAuthenticator>, assertion: ReturnType<ReturnType<typeof softAuthenticator>['assertion']>): PasskeyEvidence => ({
  ...assertion,
  rpId: device.rpId,
  origin: device.origin,
});

/** Fiona's assertion over an edit of `view`'s call to 1,000 to a known supplier, as her device makes it. */
function signedEdit(s: Store, view: RequestView) {
  const edited = canonicalizeArguments({ amount: 1000, to: 'known supplier' });
  const claims = passkeyDecisionClaims(view.proposal, view.request, { approver: 'fiona', decision: 'approve', editedArgsDigest: edited.digest });
  return { edited, signed: evidenceOf(s.fiona, s.fiona.assertion(passkeyChallenge(claims))) };
}

describe('audit verify --key-file: what a holder of the master secret and the store cannot pass off as consent', () => {
  it('an edit fiona signed, recorded as her approval of the ORIGINAL call, fails the real CLI (passkey_edit_mismatch)', async () => {
    const s = await signedPasskeyStore(cwd, 'edit-as-approval');
    const view = await s.pending();
    // Fiona's passkey signs "approve, edited to 1,000 to a known supplier"...
    const { edited, signed } = signedEdit(s, view);
    // ...and the forger records it as a plain approval of the original 500 to alice (no edited proposal).
    await forgeDecision(s, view, 'fiona', signed, { editedArgsDigest: edited.digest });
    await s.close(); // the forger holds the key: the checkpoint over it is signed too
    const { code, report } = await verifyPasskeysJson(cwd, s.path, '--key-file', keyFile);
    expect(report).toMatchObject({ ok: false, reason: 'passkey_evidence', message: expect.stringMatching(/^passkey_edit_mismatch: an edited-arguments digest on a decision that is not an edit/) });
    expect(code).toBe(1);
  });

  it('the same signed edit recorded as an edit, but naming an edited proposal with other arguments, fails too', async () => {
    const s = await signedPasskeyStore(cwd, 'edit-other-args');
    const view = await s.pending();
    const { edited, signed } = signedEdit(s, view);
    // An "edit" whose edited proposal was never recorded from this call.
    await forgeDecision(s, view, 'fiona', signed, { editedArgsDigest: edited.digest, editedProposalId: 'never-recorded' });
    await s.close();
    const { code, report } = await verifyPasskeysJson(cwd, s.path, '--key-file', keyFile);
    expect(code).toBe(1);
    expect(report.problems).toContainEqual({ seq: expect.any(Number), reason: expect.stringMatching(/^passkey_unbound: the signed decision record and the ledger's record differ in edit$/) });
  });

  it('an honest signed edit (the original closed, the edited call recorded) verifies with the key', async () => {
    const s = await signedPasskeyStore(cwd, 'honest-edit');
    const view = await s.pending();
    const editedArguments = { amount: 1000, to: 'known supplier' };
    const digest = canonicalizeArguments(editedArguments).digest;
    const assertion = s.fiona.assertion(passkeyChallenge(passkeyDecisionClaims(view.proposal, view.request, { approver: 'fiona', decision: 'approve', editedArgsDigest: digest })));
    const passkeys = webauthnVerifier(s.store.passkeys, () => ({ rpId: s.fiona.rpId, origin: s.fiona.origin }));
    const decided = await s.fx.gate.approvals.decide(
      { id: 'fiona', roles: ['finance'] },
      { requestId: view.request.requestId, decision: 'approve', editedArguments, passkeyAssertion: assertion },
      { passkeys },
    );
    expect(decided).toMatchObject({ ok: true });
    await s.close();
    const { code, report } = await verifyPasskeysJson(cwd, s.path, '--key-file', keyFile);
    expect(report).toMatchObject({ ok: true, passkeys: { verified: 2 } });
    expect(code).toBe(0);
  });

  it('one public key under two approvers: the copied registration is reported, and her touch does not count as gina’s approval', async () => {
    const s = await signedPasskeyStore(cwd, 'shared-key');
    // gina, keyless, gets a credential of her own id carrying fiona's public key (the chain writer bypasses the store's check).
    const gina = softAuthenticator('gina', { keys: s.fiona.keys });
    const row = gina.credential(s.fx.clock());
    const db = new DatabaseSync(s.path);
    db.prepare('INSERT INTO passkey_credentials (credential_id, approver, public_key, counter, label, created_at) VALUES (?, ?, ?, 0, ?, ?)').run(
      row.credentialId,
      'gina',
      row.publicKey,
      row.label,
      row.createdAt,
    );
    db.close();
    await s.audit.append(registrationEvent(row, { challenge: 'gina-ceremony', authorizedBy: 'first' }));
    // Fiona's assertion on a transfer, re-sent by gina under her own credential id: the claims name fiona.
    const view = await s.pending();
    const fionas = s.fiona.assertion(passkeyChallenge(passkeyDecisionClaims(view.proposal, view.request, { approver: 'fiona', decision: 'approve' })));
    const passkeys = webauthnVerifier(s.store.passkeys, () => ({ rpId: gina.rpId, origin: gina.origin }));
    const asGina = await s.fx.gate.approvals.decide(
      { id: 'gina', roles: ['finance'] },
      { requestId: view.request.requestId, decision: 'approve', passkeyAssertion: { ...fionas, credentialId: gina.credentialId } },
      { passkeys },
    );
    expect(asGina).toMatchObject({ ok: false, reason: 'passkey_invalid' });
    // Recorded anyway by the forger: verify refuses the decision, and the registration of a copied key.
    await forgeDecision(s, view, 'gina', evidenceOf(gina, { ...fionas, credentialId: gina.credentialId }));
    await s.close();
    const { code, report } = await verifyPasskeysJson(cwd, s.path);
    expect(code).toBe(1);
    const reasons = (report.problems as { reason: string }[]).map((p) => p.reason);
    expect(reasons).toContainEqual(expect.stringMatching(new RegExp(`^passkey_registration_duplicate_key: ${gina.credentialId} \\(gina\\) carries the public key registered before as ${s.fiona.credentialId} \\(fiona\\)`)));
    // The copied key never counts: its registration is refused, so the decision names a key the chain does not hold.
    expect(reasons).toContainEqual(expect.stringMatching(new RegExp(`^passkey_unregistered: ${gina.credentialId}`)));
  });
});

describe('decision claims name the approver (version 2); records signed before (version 1) still verify', () => {
  it('a version 1 assertion is refused online, and a record an earlier server wrote with one verifies, counted as unnamed', async () => {
    const s = await signedPasskeyStore(cwd, 'claims-v1');
    const view = await s.pending();
    const v1 = s.fiona.assertion(passkeyChallenge(passkeyDecisionClaims(view.proposal, view.request, { approver: 'fiona', decision: 'approve' }, 1)));
    const passkeys = webauthnVerifier(s.store.passkeys, () => ({ rpId: s.fiona.rpId, origin: s.fiona.origin }));
    const online = await s.fx.gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId: view.request.requestId, decision: 'approve', passkeyAssertion: v1 }, { passkeys });
    expect(online).toMatchObject({ ok: false, reason: 'passkey_invalid' });
    // What a server from before this release recorded: the same decision with the version 1 assertion.
    await forgeDecision(s, view, 'fiona', evidenceOf(s.fiona, v1));
    await s.close();
    const { code, report } = await verifyPasskeysJson(cwd, s.path, '--key-file', keyFile);
    expect(report).toMatchObject({ ok: true, passkeys: { verified: 2, unnamedApprover: 1 } });
    expect(code).toBe(0);
  });
});

describe('the passkey table: a poisoned row never hides the rest, and verify never skips the comparison', () => {
  it('a row whose transports are not strings: auth passkeys lists and removes, verify still compares every row', async () => {
    const s = await signedPasskeyStore(cwd, 'poisoned');
    const planted = softAuthenticator('fiona');
    await s.store.passkeys.add(planted.credential(1));
    await s.close();
    const db = new DatabaseSync(s.path);
    db.prepare('UPDATE passkey_credentials SET transports = ?').run('[{},1]');
    db.close();
    const listed = await runCaptured(['auth', 'passkeys', '--db', s.path, '--json'], { cwd });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).passkeys).toHaveLength(2);
    const { code, report } = await verifyPasskeysJson(cwd, s.path);
    expect(code).toBe(1);
    expect(report.problems).toEqual([{ credentialId: planted.credentialId, reason: expect.stringMatching(/^passkey_planted/) }]);
    expect((await runCaptured(['auth', 'passkeys', '--db', s.path, '--remove', s.fiona.credentialId], { cwd })).code).toBe(0);
  });

  it('a table that cannot be read is a failure with its reason, never an empty table', async () => {
    const s = await signedPasskeyStore(cwd, 'unreadable');
    await s.close();
    const db = new DatabaseSync(s.path);
    db.exec('ALTER TABLE passkey_credentials RENAME COLUMN approver TO owner');
    db.close();
    const { code, report } = await verifyPasskeysJson(cwd, s.path);
    expect(code).toBe(1);
    expect(report).toMatchObject({ ok: false, reason: 'passkey_evidence', message: expect.stringMatching(/^passkey_table_unreadable: .*approver/) });
  });

  it('the ledger’s copy of an assertion changed in the ledger alone is reported (the gate counts from the ledger)', async () => {
    const s = await signedPasskeyStore(cwd, 'ledger-copy');
    await s.close();
    const db = new DatabaseSync(s.path);
    const row = db.prepare('SELECT rowid AS id, passkey FROM decisions WHERE passkey IS NOT NULL').get() as { id: number; passkey: string };
    const evidence = JSON.parse(row.passkey) as Record<string, string>;
    db.prepare('UPDATE decisions SET passkey = ? WHERE rowid = ?').run(JSON.stringify({ ...evidence, signature: `${evidence.signature?.slice(0, -2)}AA` }), row.id);
    db.close();
    const { code, report } = await verifyPasskeysJson(cwd, s.path);
    expect(code).toBe(1);
    expect(report.problems).toEqual([{ seq: expect.any(Number), reason: expect.stringMatching(/^passkey_ledger_mismatch: the ledger's copy of fiona's assertion on .* is not the one the chain recorded/) }]);
  });

  it('an active passkey row deleted from the table is reported', async () => {
    const s = await signedPasskeyStore(cwd, 'deleted-row');
    await s.close();
    const db = new DatabaseSync(s.path);
    db.prepare('DELETE FROM passkey_credentials WHERE credential_id = ?').run(s.fiona.credentialId);
    db.close();
    const { code, report } = await verifyPasskeysJson(cwd, s.path);
    expect(code).toBe(1);
    expect(report.problems).toEqual([{ credentialId: s.fiona.credentialId, reason: expect.stringMatching(/^passkey_row_missing: .* \(fiona\) was registered in the chain/) }]);
  });
});
