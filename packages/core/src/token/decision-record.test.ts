import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../digest.ts';
import { DECISION_RECORD_VERSION, type DecisionClaims, signDecisionRecord, verifyDecisionRecord } from './decision-record.ts';
import { APPROVAL_TOKEN_PURPOSE, deriveRunKey } from './derive-run-key.ts';
import { generateEd25519Key, hmacKey, Keyring } from './keyring.ts';
import { mintApprovalToken } from './mint.ts';
import { verifyApprovalToken } from './verify.ts';

const SECRET = Buffer.alloc(32, 3);
const ring = new Keyring([hmacKey('k1', SECRET)]);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

const input: Omit<DecisionClaims, 'v' | 'canon'> = {
  run: 'run-1',
  sid: 'session-1',
  call: 'call-1',
  tool: 'deploy',
  def: null,
  args: sha256Hex('{"service":"api"}'),
  sub: 'user:42',
  req: 'req-1',
  prop: 'prop-1',
  apr: 'alice',
  dec: 'approve',
  rsn: null,
  edit: null,
  at: Date.UTC(2026, 5, 1),
};

describe('signed decision records', () => {
  it('verify with HS256 and with an Ed25519 public key only', () => {
    expect(verifyDecisionRecord(signDecisionRecord(input, ring), ring)).toMatchObject({ ok: true, claims: input });
    const ed = generateEd25519Key('ed1');
    const record = signDecisionRecord(input, new Keyring([ed]));
    const verifier = new Keyring([{ kid: 'ed1', alg: 'EdDSA', status: 'verify', publicKey: ed.publicKey }]);
    expect(verifyDecisionRecord(record, verifier)).toMatchObject({ ok: true });
  });

  it('any edited claim fails (2,000 runs)', () => {
    const [h, p, s] = signDecisionRecord(input, ring).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const anyJson = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constantFrom('approve', 'deny'));
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(claims)), anyJson, (key, value) => {
        fc.pre(JSON.stringify(value) !== JSON.stringify(claims[key]));
        return !verifyDecisionRecord(`${h}.${b64({ ...claims, [key]: value })}.${s}`, ring).ok;
      }),
      { numRuns: 2_000 },
    );
  });

  it('a decision record is never an approval token, nor the reverse', () => {
    const record = signDecisionRecord(input, ring);
    const call = {
      runId: 'run-1',
      sessionId: 'session-1',
      callId: 'call-1',
      toolName: 'deploy',
      argsDigest: input.args,
      principal: 'user:42',
    };
    expect(verifyApprovalToken(record, call, { keyring: ring, now: input.at })).toMatchObject({ reason: 'malformed' });
    const token = mintApprovalToken(
      { run: 'run-1', sid: 'session-1', call: 'call-1', tool: 'deploy', def: null, args: input.args, sub: 'user:42', apr: ['alice'], req: 'req-1', iat: 1, exp: 2, jti: 't' },
      ring,
    );
    expect(verifyDecisionRecord(token, ring)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('a record signed with the approval-token key (wrong HKDF purpose) does not verify', () => {
    const header = b64({ alg: 'HS256', typ: 'countersign-decision+jwt', kid: 'k1' });
    const payload = b64({ v: DECISION_RECORD_VERSION, canon: 'jcs-sha256-v1', ...input });
    const wrongKey = deriveRunKey(SECRET, 'run-1', APPROVAL_TOKEN_PURPOSE);
    const sig = createHmac('sha256', wrongKey).update(`${header}.${payload}`).digest('base64url');
    expect(verifyDecisionRecord(`${header}.${payload}.${sig}`, ring)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('refuses alg none, unknown keys, and missing or malformed records', () => {
    const [, p] = signDecisionRecord(input, ring).split('.') as [string, string, string];
    const none = `${b64({ alg: 'none', typ: 'countersign-decision+jwt', kid: 'k1' })}.${p}.AA`;
    expect(verifyDecisionRecord(none, ring)).toMatchObject({ reason: 'algorithm_mismatch' });
    const other = `${b64({ alg: 'HS256', typ: 'countersign-decision+jwt', kid: 'k9' })}.${p}.AA`;
    expect(verifyDecisionRecord(other, ring)).toMatchObject({ reason: 'unknown_key' });
    expect(verifyDecisionRecord(undefined, ring)).toMatchObject({ reason: 'missing' });
    expect(verifyDecisionRecord({ decision: 'approve' }, ring)).toMatchObject({ reason: 'malformed' });
  });
});
