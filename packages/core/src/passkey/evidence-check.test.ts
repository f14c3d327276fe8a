import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import { passkeyChangeChallenge, passkeyEnrolClaims, passkeyRemoveClaims } from './change-claims.ts';
import { registrationEvent, removalEvent } from './change-events.ts';
import { checkPasskeyEvidence } from './evidence-check.ts';
import { testDevice, testOfflineCheck } from './test-device.test-helper.ts';
import type { PasskeyCredential } from './types.ts';

const laptop = testDevice('fiona', 'fiona-laptop');
const other = testDevice('fiona', 'fiona-other');

const credential = (id: string, approver = 'fiona'): PasskeyCredential => ({ credentialId: id, approver, publicKey: `pk-${id}`, counter: 0, label: id, createdAt: 1 });

/** A chain a store writer appends to directly: what `audit verify` must hold to the step-up rule. */
async function chainWithLaptop() {
  const audit = new MemoryAuditLog();
  await audit.append(registrationEvent(credential('fiona-laptop'), { challenge: 'reg-1', authorizedBy: 'first' }));
  return audit;
}

describe('checkPasskeyEvidence: registrations and removals in the chain follow the step-up rule', () => {
  it('refuses an approver removal whose step-up is missing, made for another removal, or by a key that is not hers', async () => {
    const audit = await chainWithLaptop();
    await audit.append(registrationEvent(credential('mallory-key', 'mallory'), { challenge: 'reg-m', authorizedBy: 'first' }));
    const removal = (stepUp: ReturnType<typeof laptop.sign> | undefined) => ({
      ...removalEvent({ credentialId: 'fiona-laptop', approver: 'fiona', removedBy: 'approver', nonce: 'n', stepUp: stepUp && { ...stepUp, rpId: 'localhost', origin: 'http://localhost' } }, 2),
      seq: 3,
      prevHash: '0'.repeat(64),
      hash: '0'.repeat(64),
    });
    const records = await audit.read();
    const check = async (stepUp: ReturnType<typeof laptop.sign> | undefined) => (await checkPasskeyEvidence([...records, removal(stepUp)], testOfflineCheck)).problems;
    expect(await check(undefined)).toEqual([{ seq: 3, reason: expect.stringMatching(/^passkey_removal_malformed/) }]);
    expect(await check(laptop.sign(passkeyChangeChallenge(passkeyRemoveClaims('fiona', 'fiona-other', 'n'))))).toEqual([
      { seq: 3, reason: expect.stringMatching(/^passkey_removal_unauthorized: the step-up assertion does not verify/) },
    ]);
    const malloryKey = testDevice('mallory', 'mallory-key');
    expect(await check(malloryKey.sign(passkeyChangeChallenge(passkeyRemoveClaims('fiona', 'fiona-laptop', 'n'))))).toEqual([
      { seq: 3, reason: expect.stringMatching(/^passkey_removal_unauthorized: the step-up passkey mallory-key is not an active passkey of fiona/) },
    ]);
    expect(await check(laptop.sign(passkeyChangeChallenge(passkeyRemoveClaims('fiona', 'fiona-laptop', 'n'))))).toEqual([]);
  });

  it('refuses a second passkey registered on one ceremony: the step-up replayed (it signs the ceremony, not the key)', async () => {
    const audit = await chainWithLaptop();
    const stepUp = { ...laptop.sign(passkeyChangeChallenge(passkeyEnrolClaims('fiona', 'reg-2'))), rpId: 'localhost', origin: 'http://localhost' };
    await audit.append(registrationEvent(credential('fiona-phone'), { challenge: 'reg-2', authorizedBy: 'passkey', stepUp }));
    await audit.append(registrationEvent(credential('mallory-key'), { challenge: 'reg-2', authorizedBy: 'passkey', stepUp }));
    const report = await checkPasskeyEvidence(await audit.read(), testOfflineCheck);
    expect(report.problems).toEqual([{ seq: 3, reason: expect.stringMatching(/^passkey_registration_replayed/) }]);
  });

  it('refuses a credential registered twice, a malformed registration, and a removal of a key the chain does not know', async () => {
    const audit = await chainWithLaptop();
    await audit.append(registrationEvent(credential('fiona-laptop', 'mallory'), { challenge: 'reg-2', authorizedBy: 'first' }));
    await audit.append({ type: 'passkey_registered', at: 3, actor: 'fiona', detail: { credentialId: 'x', approver: 'mallory', publicKey: 'pk', challenge: 'c', authorizedBy: 'first' } });
    await audit.append(removalEvent({ credentialId: other.credentialId, approver: 'fiona', removedBy: 'operator' }, 4));
    const report = await checkPasskeyEvidence(await audit.read(), testOfflineCheck);
    expect(report.problems.map((p) => p.reason.split(':')[0])).toEqual(['passkey_registration_duplicate', 'passkey_registration_malformed', 'passkey_removal_unknown']);
  });
});
