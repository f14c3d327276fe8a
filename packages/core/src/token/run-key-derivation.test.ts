import { createHmac, hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RECIPE_ID } from '../canonical/recipe.ts';
import { sha256Hex } from '../digest.ts';
import { DECISION_RECORD_TYPE, signDecisionRecord, verifyDecisionRecord } from './decision-record.ts';
import { APPROVAL_TOKEN_PURPOSE, DECISION_RECORD_PURPOSE, deriveRunKey, hkdfInfo } from './derive-run-key.ts';
import { type ExpectedCall, TOKEN_TYPE } from './format.ts';
import { hmacKey, Keyring } from './keyring.ts';
import { mintApprovalToken } from './mint.ts';
import { verifyApprovalToken } from './verify.ts';

const SECRET = Buffer.alloc(32, 9);
const ring = new Keyring([hmacKey('k1', SECRET)]);
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const nowS = NOW / 1000;
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const args = sha256Hex('{"amount":10}');

const expectedFor = (runId: string): ExpectedCall => ({
  runId,
  sessionId: 's',
  callId: 'c',
  toolName: 'transfer',
  argsDigest: args,
  principal: 'user:1',
});

/** A token for `runId` with claims in format `v`, MACed with `key` (as a leaked or legacy key would). */
function tokenSignedWith(key: Buffer, runId: string, v: number): string {
  const header = b64({ alg: 'HS256', typ: TOKEN_TYPE, kid: 'k1' });
  const payload = b64({
    v,
    canon: RECIPE_ID,
    run: runId,
    sid: 's',
    call: 'c',
    tool: 'transfer',
    def: null,
    args,
    sub: 'user:1',
    apr: ['alice'],
    req: 'req-1',
    iat: nowS - 1,
    exp: nowS + 60,
    jti: 'tok-1',
  });
  return `${header}.${payload}.${createHmac('sha256', key).update(`${header}.${payload}`).digest('base64url')}`;
}

describe('per-run key derivation (run id in the HKDF info, length-prefixed)', () => {
  it('run ids differing only by trailing NUL bytes derive different keys', () => {
    // With the run id as the HMAC salt these were equal: HMAC pads short keys with zeros.
    for (const purpose of [APPROVAL_TOKEN_PURPOSE, DECISION_RECORD_PURPOSE]) {
      const plain = deriveRunKey(SECRET, 'r', purpose);
      expect(plain.equals(deriveRunKey(SECRET, 'r\u0000', purpose))).toBe(false);
      expect(plain.equals(deriveRunKey(SECRET, 'r\u0000\u0000', purpose))).toBe(false);
    }
  });

  it('the key of run "r" cannot sign a token that verifies for run "r\\u0000"', () => {
    const leakedKeyOfR = deriveRunKey(SECRET, 'r');
    const forged = tokenSignedWith(leakedKeyOfR, 'r\u0000', 2);
    expect(verifyApprovalToken(forged, expectedFor('r\u0000'), { keyring: ring, now: NOW })).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
    // The honest token for each run verifies only for its own run.
    const honest = mintApprovalToken({ ...claims('r') }, ring);
    expect(verifyApprovalToken(honest, expectedFor('r'), { keyring: ring, now: NOW }).ok).toBe(true);
    expect(verifyApprovalToken(honest, expectedFor('r\u0000'), { keyring: ring, now: NOW })).toMatchObject({ ok: false });
  });

  it('the info encoding is injective: purpose and run id cannot trade bytes', () => {
    expect(hkdfInfo('ab', 'c').equals(hkdfInfo('a', 'bc'))).toBe(false);
    expect(hkdfInfo('p', 'r')).toEqual(Buffer.from([0, 0, 0, 1, 0x70, 0, 0, 0, 1, 0x72]));
    // The pinned derivation: HKDF-SHA256, empty salt, this info, 32 bytes.
    const expected = Buffer.from(hkdfSync('sha256', SECRET, Buffer.alloc(0), hkdfInfo(APPROVAL_TOKEN_PURPOSE, 'run-1'), 32));
    expect(deriveRunKey(SECRET, 'run-1').equals(expected)).toBe(true);
  });

  it('a v1 token is refused as unsupported_format, whichever derivation signed it', () => {
    const legacyKey = Buffer.from(hkdfSync('sha256', SECRET, Buffer.from('r'), Buffer.from('countersign/v1/approval-token'), 32));
    for (const key of [legacyKey, deriveRunKey(SECRET, 'r')]) {
      const result = verifyApprovalToken(tokenSignedWith(key, 'r', 1), expectedFor('r'), { keyring: ring, now: NOW });
      expect(result).toMatchObject({ ok: false, reason: 'unsupported_format', message: 'unsupported token format version 1' });
    }
  });

  it('decision records: the key of run "r" cannot sign a record for run "r\\u0000"', () => {
    const honest = signDecisionRecord(decision('r\u0000'), ring);
    expect(verifyDecisionRecord(honest, ring)).toMatchObject({ ok: true });
    const [, payload] = honest.split('.') as [string, string, string];
    const header = b64({ alg: 'HS256', typ: DECISION_RECORD_TYPE, kid: 'k1' });
    const mac = createHmac('sha256', deriveRunKey(SECRET, 'r', DECISION_RECORD_PURPOSE)).update(`${header}.${payload}`);
    expect(verifyDecisionRecord(`${header}.${payload}.${mac.digest('base64url')}`, ring)).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('the key cache keeps (kid, run) pairs apart even when they share a concatenation', () => {
    const one = hmacKey('a\u0000b', Buffer.alloc(32, 1));
    const two = { ...hmacKey('a', Buffer.alloc(32, 2)), status: 'verify' as const };
    const keys = new Keyring([one, two]);
    const first = keys.runKey(one, 'c');
    const second = keys.runKey(two, 'b\u0000c');
    expect(first.export().equals(second.export())).toBe(false);
  });
});

function claims(runId: string) {
  return { run: runId, sid: 's', call: 'c', tool: 'transfer', def: null, args, sub: 'user:1', apr: ['alice'], req: 'req-1', iat: nowS - 1, exp: nowS + 60, jti: 'tok-1' };
}

function decision(runId: string) {
  return { run: runId, sid: 's', call: 'c', tool: 'transfer', def: null, args, sub: 'user:1', req: 'req-1', prop: 'p-1', apr: 'alice', dec: 'approve' as const, rsn: null, edit: null, at: NOW };
}
