import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removePasskeyAsOperator, registrationEvent, removalEvent } from '@countersign/core/passkey';
import { loadPolicy } from '@countersign/core/policy';
import { CheckpointingAuditLog } from '@countersign/core/audit';
import { makeGateFixture, PASSKEY_POLICY_YAML as POLICY } from '@countersign/core/testing';
import { signDecisionRecord } from '@countersign/core/token';
import { openSqliteStore } from '@countersign/store-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { softAuthenticator } from '@countersign/server/test-kit';
import { signedPasskeyStore, verifyPasskeysJson } from './testing/signed-passkey-store.ts';
import { runCaptured } from './testing/capture-io.ts';


const cwd = mkdtempSync(join(tmpdir(), 'countersign-cli-passkeys-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const storeWithSignedApproval = (name: string, options: { register?: boolean } = {}) => signedPasskeyStore(cwd, name, options);
const verifyJson = (path: string) => verifyPasskeysJson(cwd, path);

describe('countersign audit verify: passkey assertions', () => {
  it('re-verifies each assertion against the public key registered in the chain (no server key needed)', async () => {
    const { path, close } = await storeWithSignedApproval('honest');
    await close();
    const run = await runCaptured(['audit', 'verify', '--db', path], { cwd });
    expect(run.stdout).toContain('passkey assertions: 1 verified against public keys registered in the chain');
    expect(run.stdout).toContain("passkey registrations: 1 (1 an approver's first, on sign-in alone), removals: 0 (0 by an operator); passkey table: 1 row, matching the chain; ledger copies of passkey decisions match");
    expect(run.stdout).toContain('--anchor');
    expect(run.code).toBe(0);
    expect(await verifyJson(path)).toMatchObject({ code: 0, report: { ok: true, passkeys: { verified: 1, registered: 1, tableRows: 1 } } });
    // An export carries the registrations, so it is checked in full too.
    expect((await runCaptured(['audit', 'export', '--db', path, '--out', 'honest.jsonl'], { cwd })).code).toBe(0);
    const fromFile = await runCaptured(['audit', 'verify', '--file', 'honest.jsonl', '--json'], { cwd });
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ ok: true, passkeys: { verified: 1, registered: 1, tableRows: null } });
  });

  it('a key planted in the passkey table (no chain record) and a decision signed with it: verify fails and names the key', async () => {
    const { path, store, approveWith, close } = await storeWithSignedApproval('planted');
    // Someone who can write the passkey table adds their own key in fiona's name; the server takes it...
    const planted = softAuthenticator('fiona');
    await store.passkeys.add(planted.credential(1));
    await approveWith(planted);
    await close();
    // ...but the chain never registered it.
    const { code, report } = await verifyJson(path);
    expect(code).toBe(1);
    expect(report).toMatchObject({ ok: false, reason: 'passkey_evidence', message: expect.stringMatching(new RegExp(`^passkey_unregistered: ${planted.credentialId}`)) });
    expect(report.problems).toContainEqual({ credentialId: planted.credentialId, reason: expect.stringMatching(new RegExp(`^passkey_planted: ${planted.credentialId} \\(fiona\\)`)) });
    const text = await runCaptured(['audit', 'verify', '--db', path], { cwd });
    expect(text.stdout).toContain(`passkey_planted: ${planted.credentialId}`);
  });

  it('a registration and its chain record are one commit in the SQLite store behind serve’s checkpointing log', async () => {
    const { store, enrol, close } = await storeWithSignedApproval('one-commit', { register: false });
    const before = store.durableCommits();
    await enrol(softAuthenticator('fiona'));
    expect(store.durableCommits() - before).toBe(1);
    expect((await store.audit.read()).at(-1)).toMatchObject({ type: 'passkey_registered' });
    await close();
  });

  it('a planted key that has signed nothing yet is still reported', async () => {
    const { path, store, close } = await storeWithSignedApproval('planted-idle');
    const planted = softAuthenticator('fiona');
    await store.passkeys.add(planted.credential(1));
    await close();
    const { code, report } = await verifyJson(path);
    expect(code).toBe(1);
    expect(report.problems).toEqual([{ credentialId: planted.credentialId, reason: expect.stringMatching(/^passkey_planted/) }]);
  });

  it('a key registered in the chain only AFTER the decision it signed does not count', async () => {
    const { path, store, audit, fx, fiona, approveWith, close } = await storeWithSignedApproval('late', { register: false });
    await store.passkeys.add(fiona.credential(1));
    await approveWith(fiona);
    await audit.append(registrationEvent(fiona.credential(fx.clock()), { challenge: 'ceremony', authorizedBy: 'first' }));
    await close();
    const { code, report } = await verifyJson(path);
    expect(code).toBe(1);
    expect(report.message).toMatch(/^passkey_unregistered: .* before this decision/);
  });

  it('a key removed in the chain before the decision does not count', async () => {
    const { path, audit, fx, fiona, approveWith, close } = await storeWithSignedApproval('removed-before');
    await audit.append(removalEvent({ credentialId: fiona.credentialId, approver: 'fiona', removedBy: 'operator' }, fx.clock()));
    await approveWith(fiona); // the table still has it active: the server took the assertion
    await close();
    const { code, report } = await verifyJson(path);
    expect(code).toBe(1);
    expect(report.message).toMatch(/^passkey_removed: .* before this decision/);
    expect(report.problems).toContainEqual({ credentialId: fiona.credentialId, reason: expect.stringMatching(/^passkey_table_mismatch: .* removed in the chain/) });
  });

  it('a registration appended to the chain without a step-up while the approver had a key is refused', async () => {
    const { path, audit, fx, close } = await storeWithSignedApproval('chain-forged');
    const intruder = softAuthenticator('fiona');
    await audit.append(registrationEvent(intruder.credential(fx.clock()), { challenge: 'ceremony', authorizedBy: 'first' }));
    await close();
    const { code, report } = await verifyJson(path);
    expect(code).toBe(1);
    expect(report.message).toMatch(/^passkey_registration_unauthorized: registered as fiona's first passkey while they had an active one/);
  });

  it('an operator removal (lost device) is audited as such and verifies; the removed key signs nothing new', async () => {
    const { path, fiona, close } = await storeWithSignedApproval('operator');
    await close();
    const removed = await runCaptured(['auth', 'passkeys', '--db', path, '--remove', fiona.credentialId], { cwd });
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`removed passkey ${fiona.credentialId} of fiona`);
    expect((await runCaptured(['auth', 'passkeys', '--db', path, '--remove', fiona.credentialId], { cwd })).code).toBe(1);
    const { code, report } = await verifyJson(path);
    expect(code).toBe(0);
    expect(report.passkeys).toMatchObject({ verified: 1, registered: 1, removed: 1, operatorRemovals: 1, reRegistrations: [] });
    const reopened = openSqliteStore({ path });
    const last = (await reopened.audit.read()).at(-1);
    await reopened.close();
    expect(last).toMatchObject({ type: 'passkey_removed', actor: 'operator', detail: { credentialId: fiona.credentialId, approver: 'fiona', removedBy: 'operator' } });
  });

  it('an operator removal then a "first" registration (recovery, or what a chain writer would append) passes but is listed', async () => {
    const { path, store, audit, fx, fiona, enrol, close } = await storeWithSignedApproval('re-registered');
    const replacement = softAuthenticator('fiona');
    expect(await removePasskeyAsOperator({ store: store.passkeys, audit }, { credentialId: fiona.credentialId, now: fx.clock() })).toMatchObject({ ok: true });
    await enrol(replacement);
    await close();
    const run = await runCaptured(['audit', 'verify', '--db', path], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`NOTE: seq \\d+: fiona registered ${replacement.credentialId} on sign-in alone after losing all earlier passkeys`));
  });

  it('catches a decision inserted into the store with a server-signed record but no assertion (exit 1)', async () => {
    const { path, store, fx, pending, close } = await storeWithSignedApproval('forged');
    // Someone with the master secret and write access to the store, but not fiona's device.
    const view = await pending();
    const decision = { approver: 'fiona', decision: 'approve' as const, reason: undefined, at: fx.clock() };
    const added = await store.ledger.addDecision(view.request.requestId, decision, {
      now: fx.clock(),
      tokenIdIfApproved: 'forged-token',
      // The decision record is signed with the real server key, exactly as the gate would.
      audit: (r) => {
        if (!r.ok) return [];
        const p = view.proposal;
        const record = signDecisionRecord(
          { run: p.runId, sid: p.sessionId, call: p.callId, tool: p.toolName, def: p.definitionDigest ?? null, args: p.argsDigest, sub: p.principal, req: r.request.requestId, prop: p.proposalId, apr: 'fiona', dec: 'approve', rsn: null, edit: null, at: decision.at },
          fx.keyring,
        );
        const about = { runId: p.runId, sessionId: p.sessionId, callId: p.callId, proposalId: p.proposalId, toolName: p.toolName, argsDigest: p.argsDigest };
        return [{ type: 'decision', at: decision.at, ...about, requestId: r.request.requestId, actor: 'fiona', detail: { decision: 'approve', status: r.request.status, record } }];
      },
    });
    expect(added).toMatchObject({ ok: true, request: { status: 'approved' } });
    await close(); // and the forger, holding the key, signs a checkpoint over it
    const run = await runCaptured(['audit', 'verify', '--db', path], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('passkey_evidence');
    expect(run.stdout).toContain('passkey_missing');
    // The forged decision record itself is perfectly signed: only the passkey check catches it.
    const keyed = await runCaptured(['audit', 'verify', '--db', path, '--json'], { cwd, env: { COUNTERSIGN_MASTER_SECRET: Buffer.alloc(32, 0x5a).toString('base64url') } });
    expect(JSON.parse(keyed.stdout)).toMatchObject({ ok: false, reason: 'passkey_evidence' });
    // An export read without its store still finds the decision that has no assertion.
    const exported = await runCaptured(['audit', 'export', '--db', path, '--out', 'forged.jsonl'], { cwd });
    expect(exported.code).toBe(0);
    const fromFile = await runCaptured(['audit', 'verify', '--file', 'forged.jsonl'], { cwd });
    expect(fromFile.code).toBe(1);
    expect(fromFile.stdout).toContain('passkey_missing');
  });

  it('catches a request whose passkey rule was erased in the database before an unsigned approval', async () => {
    const { path, fx, pending, close } = await storeWithSignedApproval('erased');
    const view = await pending();
    await close();
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(path);
    db.prepare('UPDATE approval_requests SET passkey = NULL WHERE request_id = ?').run(view.request.requestId);
    db.close();
    // The ledger no longer asks for a passkey, so the gate takes a plain approval...
    const reopened = openSqliteStore({ path });
    const keyring = fx.keyring;
    const again = makeGateFixture({ ledger: reopened.ledger, audit: new CheckpointingAuditLog(reopened.audit, { keyring, everyRecords: 1000, everyMs: 0 }), keyring, policy: loadPolicy(POLICY, 'yaml') });
    expect(await again.gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId: view.request.requestId, decision: 'approve' })).toMatchObject({ ok: true });
    await reopened.close();
    // ...but the chained approval_requested record still says it needed one.
    const run = await runCaptured(['audit', 'verify', '--db', path], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('passkey_missing');
  });

  it('catches a key row swapped in the table: its public key is not the one the chain registered', async () => {
    const { path, close } = await storeWithSignedApproval('swapped');
    await close();
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(path);
    db.prepare('UPDATE passkey_credentials SET public_key = ?').run(softAuthenticator('fiona').credential().publicKey);
    db.close();
    const run = await runCaptured(['audit', 'verify', '--db', path], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('passkey_table_mismatch: the public key of');
  });
});

describe('countersign auth passkeys', () => {
  it('lists who has which passkeys, never the key itself', async () => {
    const { path, close } = await storeWithSignedApproval('listing');
    await close();
    const run = await runCaptured(['auth', 'passkeys', '--db', path], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^fiona: 1 passkey\n {2}fiona's test key \([A-Za-z0-9_-]+\) added .*last used/);
    const json = JSON.parse((await runCaptured(['auth', 'passkeys', '--db', path, '--json'], { cwd })).stdout);
    expect(json.passkeys).toEqual([expect.objectContaining({ approver: 'fiona', counter: 1 })]);
    expect(JSON.stringify(json)).not.toContain('publicKey');
  });
});
