import { join } from 'node:path';
import { CheckpointingAuditLog } from '@countersign/core/audit';
import { enrolPasskey, passkeyChallenge, passkeyDecisionClaims } from '@countersign/core/passkey';
import { loadPolicy } from '@countersign/core/policy';
import { FIXTURE_SECRET, makeGateFixture, PASSKEY_POLICY_YAML as POLICY, requestView } from '@countersign/core/testing';
import { hmacKey, Keyring } from '@countersign/core/token';
import { openSqliteStore } from '@countersign/store-sqlite';
import { webauthnVerifier } from '@countersign/server';
import { softAuthenticator } from '@countersign/server/test-kit';
import { runCaptured } from './capture-io.ts';

type Device = ReturnType<typeof softAuthenticator>;

/**
 * A SQLite store with fiona's passkey registered as the server registers it (table row
 * and passkey_registered record in one transaction) and one transfer she approved with
 * it. `register: false` leaves the registration to the test.
 */
export async function signedPasskeyStore(cwd: string, name: string, options: { register?: boolean } = {}) {
  const path = join(cwd, `${name}.sqlite`);
  const store = openSqliteStore({ path });
  const fiona = softAuthenticator('fiona');
  const keyring = new Keyring([hmacKey('k1', FIXTURE_SECRET)]);
  // Checkpointed as `serve` does, so a keyed verify checks everything the server signs.
  const audit = new CheckpointingAuditLog(store.audit, { keyring, everyRecords: 1000, everyMs: 0 });
  const fx = makeGateFixture({ ledger: store.ledger, audit, keyring, policy: loadPolicy(POLICY, 'yaml') });
  const passkeys = webauthnVerifier(store.passkeys, () => ({ rpId: fiona.rpId, origin: fiona.origin }));
  const enrol = async (device: Device) => {
    const enrolled = await enrolPasskey({ store: store.passkeys, audit, verifier: passkeys }, { credential: device.credential(fx.clock()), registrationChallenge: `ceremony-${device.credentialId}`, algorithm: -7, now: fx.clock() });
    if (!enrolled.ok) throw new Error(enrolled.message);
  };
  if (options.register !== false) await enrol(fiona);
  const pending = async () => {
    const proposed = await fx.gate.propose(fx.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    const view = await requestView(fx.gate, proposed.requestId);
    if (view === undefined) throw new Error('no request');
    return view;
  };
  /** A new transfer approved with `device`'s assertion, as the server takes it (it checks the table). */
  const approveWith = async (device: Device) => {
    const view = await pending();
    const assertion = device.assertion(passkeyChallenge(passkeyDecisionClaims(view.proposal, view.request, { approver: device.owner, decision: 'approve' })));
    const decided = await fx.gate.approvals.decide({ id: device.owner, roles: ['finance'] }, { requestId: view.request.requestId, decision: 'approve', passkeyAssertion: assertion }, { passkeys });
    if (!decided.ok) throw new Error(decided.message);
  };
  if (options.register !== false) await approveWith(fiona);
  const close = async () => {
    await audit.close();
    await store.close();
  };
  return { path, store, audit, fx, fiona, enrol, pending, approveWith, close };
}

/** `countersign audit verify --db PATH --json` (the real CLI), with `extra` flags. */
export async function verifyPasskeysJson(cwd: string, path: string, ...extra: string[]) {
  const run = await runCaptured(['audit', 'verify', '--db', path, '--json', ...extra], { cwd });
  return { code: run.code, report: JSON.parse(run.stdout) };
}
