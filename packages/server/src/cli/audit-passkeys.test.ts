import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { passkeyChallenge, passkeyDecisionClaims } from '@countersign/core/passkey';
import { loadPolicy } from '@countersign/core/policy';
import { CheckpointingAuditLog } from '@countersign/core/audit';
import { FIXTURE_SECRET, makeGateFixture, requestView, PASSKEY_POLICY_YAML as POLICY } from '@countersign/core/testing';
import { hmacKey, Keyring, signDecisionRecord } from '@countersign/core/token';
import { openSqliteStore } from '@countersign/store-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { webauthnVerifier } from '../passkey/webauthn-verifier.ts';
import { softAuthenticator } from '../testing/soft-authenticator.ts';
import { runCaptured } from './testing/capture-io.ts';


const cwd = mkdtempSync(join(tmpdir(), 'countersign-cli-passkeys-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** A SQLite store with fiona's passkey and one transfer she approved with it. */
async function storeWithSignedApproval(name: string) {
  const path = join(cwd, `${name}.sqlite`);
  const store = openSqliteStore({ path });
  const fiona = softAuthenticator('fiona');
  await store.passkeys.add(fiona.credential());
  const keyring = new Keyring([hmacKey('k1', FIXTURE_SECRET)]);
  // Checkpointed as `serve` does, so a keyed verify checks everything the server signs.
  const audit = new CheckpointingAuditLog(store.audit, { keyring, everyRecords: 1000, everyMs: 0 });
  const fx = makeGateFixture({ ledger: store.ledger, audit, keyring, policy: loadPolicy(POLICY, 'yaml') });
  const passkeys = webauthnVerifier(store.passkeys, () => ({ rpId: fiona.rpId, origin: fiona.origin }));
  const pending = async () => {
    const proposed = await fx.gate.propose(fx.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    const view = await requestView(fx.gate, proposed.requestId);
    if (view === undefined) throw new Error('no request');
    return view;
  };
  const view = await pending();
  const assertion = fiona.assertion(passkeyChallenge(passkeyDecisionClaims(view.proposal, view.request, { decision: 'approve' })));
  const decided = await fx.gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId: view.request.requestId, decision: 'approve', passkeyAssertion: assertion }, { passkeys });
  if (!decided.ok) throw new Error(decided.message);
  const close = async () => {
    await audit.close();
    await store.close();
  };
  return { path, store, fx, pending, close };
}

describe('countersign audit verify: passkey assertions', () => {
  it('re-verifies each assertion against the registered public key (no server key needed)', async () => {
    const { path, close } = await storeWithSignedApproval('honest');
    await close();
    const run = await runCaptured(['audit', 'verify', '--db', path], { cwd });
    expect(run.stdout).toContain('passkey assertions: 1 verified against registered public keys');
    expect(run.code).toBe(0);
    const json = await runCaptured(['audit', 'verify', '--db', path, '--json'], { cwd });
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, passkeys: { verified: 1, unchecked: 0 } });
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

  it('catches an assertion whose public key is not the one registered (the key row swapped)', async () => {
    const { path, close } = await storeWithSignedApproval('swapped');
    await close();
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(path);
    db.prepare('UPDATE passkey_credentials SET public_key = ?').run(softAuthenticator('fiona').credential().publicKey);
    db.close();
    const run = await runCaptured(['audit', 'verify', '--db', path], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('passkey_invalid');
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
