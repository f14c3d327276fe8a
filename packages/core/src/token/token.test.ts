import { createHmac, generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECIPE_ID } from '../canonical/recipe.ts';
import { sha256Hex } from '../digest.ts';
import { deriveRunKey } from './derive-run-key.ts';
import type { ExpectedCall } from './format.ts';
import { generateEd25519Key, hmacKey, Keyring, keyringFromEnv } from './keyring.ts';
import { type MintInput, mintApprovalToken } from './mint.ts';
import { verifyApprovalToken } from './verify.ts';

const SECRET = Buffer.alloc(32, 7);
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const nowS = NOW / 1000;

const call: ExpectedCall = {
  runId: 'run-1',
  sessionId: 'sess-1',
  callId: 'call-1',
  toolName: 'transfer',
  definitionDigest: 'd'.repeat(64),
  argsDigest: sha256Hex('{"amount":10,"to":"alice"}'),
  principal: 'user:42',
};

function claimsFor(c: ExpectedCall, overrides: Partial<MintInput> = {}): MintInput {
  return {
    run: c.runId,
    sid: c.sessionId,
    call: c.callId,
    tool: c.toolName,
    def: c.definitionDigest ?? null,
    args: c.argsDigest,
    sub: c.principal,
    apr: ['alice@example.com'],
    req: 'req-1',
    iat: nowS - 10,
    exp: nowS + 300,
    jti: 'tok-1',
    ...overrides,
  };
}

const hsRing = new Keyring([hmacKey('k1', SECRET)]);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const parts = (t: string) => t.split('.') as [string, string, string];

describe('approval tokens', () => {
  it('the honest token verifies (HS256 and EdDSA)', () => {
    const token = mintApprovalToken(claimsFor(call), hsRing);
    expect(verifyApprovalToken(token, call, { keyring: hsRing, now: NOW })).toMatchObject({ ok: true, kid: 'k1' });
    const edRing = new Keyring([generateEd25519Key('ed1')]);
    const edToken = mintApprovalToken(claimsFor(call), edRing);
    expect(verifyApprovalToken(edToken, call, { keyring: edRing, now: NOW })).toMatchObject({ ok: true });
  });

  it('is a JWS any JOSE library can check: HS256 over header.payload with the per-run HKDF key', () => {
    const token = mintApprovalToken(claimsFor(call), hsRing);
    const [h, p, s] = parts(token);
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({
      alg: 'HS256',
      typ: 'countersign-approval+jwt',
      kid: 'k1',
    });
    const mac = createHmac('sha256', deriveRunKey(SECRET, 'run-1')).update(`${h}.${p}`).digest('base64url');
    expect(s).toBe(mac);
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    expect(claims).toMatchObject({ v: 2, canon: RECIPE_ID, run: 'run-1', jti: 'tok-1', req: 'req-1' });
  });

  it('an executor holding only the Ed25519 public key verifies', () => {
    const minter = generateEd25519Key('ed1');
    const token = mintApprovalToken(claimsFor(call), new Keyring([minter]));
    const verifier = new Keyring([{ kid: 'ed1', alg: 'EdDSA', status: 'verify', publicKey: minter.publicKey }]);
    expect(verifyApprovalToken(token, call, { keyring: verifier, now: NOW }).ok).toBe(true);
    expect(() => mintApprovalToken(claimsFor(call), verifier)).toThrow(/no active key/);
  });

  it('is deterministic across keyring instances (restart / durable replay)', () => {
    const a = mintApprovalToken(claimsFor(call), new Keyring([hmacKey('k1', SECRET)]));
    const b = mintApprovalToken(claimsFor(call), new Keyring([hmacKey('k1', SECRET)]));
    expect(a).toBe(b);
    expect(verifyApprovalToken(a, call, { keyring: new Keyring([hmacKey('k1', SECRET)]), now: NOW }).ok).toBe(true);
  });

  const cases: Array<[string, Partial<ExpectedCall>, string]> = [
    ['replay onto another call id', { callId: 'call-2' }, 'call_mismatch'],
    ['argument drift', { argsDigest: sha256Hex('{"amount":10000,"to":"alice"}') }, 'args_mismatch'],
    ['principal swap', { principal: 'user:99' }, 'principal_mismatch'],
    ['tool swap', { toolName: 'delete_repo' }, 'tool_mismatch'],
    ['cross-run', { runId: 'run-2' }, 'run_mismatch'],
    ['cross-session', { sessionId: 'sess-2' }, 'session_mismatch'],
    ['definition changed', { definitionDigest: 'e'.repeat(64) }, 'definition_mismatch'],
    ['definition dropped', { definitionDigest: undefined }, 'definition_mismatch'],
  ];
  for (const [name, change, reason] of cases) {
    it(`rejects ${name} with ${reason}`, () => {
      const token = mintApprovalToken(claimsFor(call), hsRing);
      expect(verifyApprovalToken(token, { ...call, ...change }, { keyring: hsRing, now: NOW })).toMatchObject({
        ok: false,
        reason,
      });
    });
  }

  it('rejects expired and not-yet-valid tokens using the injected clock', () => {
    const token = mintApprovalToken(claimsFor(call, { iat: nowS, exp: nowS + 60 }), hsRing);
    const at = (ms: number) => verifyApprovalToken(token, call, { keyring: hsRing, now: ms });
    expect(at(NOW + 59_000).ok).toBe(true);
    expect(at(NOW + 65_000)).toMatchObject({ ok: false, reason: 'expired' });
    expect(at(NOW - 6_000)).toMatchObject({ ok: false, reason: 'not_yet_valid' });
    const strict = verifyApprovalToken(token, call, { keyring: hsRing, now: NOW + 60_000, clockToleranceSeconds: 0 });
    expect(strict).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('rejects missing, truncated, re-encoded and forged tokens', () => {
    const token = mintApprovalToken(claimsFor(call), hsRing);
    const [h, p, s] = parts(token);
    const check = (t: unknown) => verifyApprovalToken(t, call, { keyring: hsRing, now: NOW });
    expect(check(undefined)).toMatchObject({ reason: 'missing' });
    expect(check('')).toMatchObject({ reason: 'missing' });
    expect(check(true)).toMatchObject({ reason: 'malformed' }); // the `approved: true` flag
    expect(check({ approved: true })).toMatchObject({ reason: 'malformed' });
    expect(check(`${h}.${p}`)).toMatchObject({ reason: 'malformed' });
    expect(check(`${h}.${p}.`)).toMatchObject({ reason: 'malformed' });
    expect(check(`${h}.${p}.${s.slice(0, -3)}`)).toMatchObject({ reason: 'bad_signature' }); // 30 bytes
    expect(check(`${h}.${p}.${s.slice(0, -4)}`)).toMatchObject({ reason: 'malformed' }); // not whole bytes
    expect(check(`${h}.${p}.${'A'.repeat(43)}`)).toMatchObject({ reason: 'bad_signature' });
    expect(check(`${h}.${p}.${s}=`)).toMatchObject({ reason: 'malformed' });
    expect(check(`${h}.${p}.${Buffer.from(s, 'base64url').toString('base64')}`)).not.toMatchObject({ ok: true });
    expect(check('x'.repeat(10_000))).toMatchObject({ reason: 'malformed' });
    // the same claims re-serialized (different bytes) do not carry the signature over
    const reencoded = b64(JSON.parse(Buffer.from(p, 'base64url').toString()) as object);
    const spaced = Buffer.from(JSON.stringify(JSON.parse(Buffer.from(p, 'base64url').toString()), null, 1)).toString(
      'base64url',
    );
    expect(reencoded).toBe(p);
    expect(check(`${h}.${spaced}.${s}`)).toMatchObject({ reason: 'bad_signature' });
  });

  it('rejects a payload edited to match another call (flip, drift) as a bad signature', () => {
    const token = mintApprovalToken(claimsFor(call), hsRing);
    const [h, p, s] = parts(token);
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const drifted = b64({ ...claims, args: sha256Hex('{"amount":10000,"to":"alice"}') });
    const driftCall = { ...call, argsDigest: sha256Hex('{"amount":10000,"to":"alice"}') };
    expect(verifyApprovalToken(`${h}.${drifted}.${s}`, driftCall, { keyring: hsRing, now: NOW })).toMatchObject({
      reason: 'bad_signature',
    });
  });

  it('refuses alg "none", and HS256 keyed with an EdDSA public key (algorithm confusion)', () => {
    const ed = generateEd25519Key('ed1');
    const ring = new Keyring([ed]);
    const token = mintApprovalToken(claimsFor(call), ring);
    const [, p] = parts(token);
    const none = `${b64({ alg: 'none', typ: 'countersign-approval+jwt', kid: 'ed1' })}.${p}.AA`;
    expect(verifyApprovalToken(none, call, { keyring: ring, now: NOW })).toMatchObject({
      reason: 'algorithm_mismatch',
    });
    const emptySig = `${b64({ alg: 'none', typ: 'countersign-approval+jwt', kid: 'ed1' })}.${p}.`;
    expect(verifyApprovalToken(emptySig, call, { keyring: ring, now: NOW }).ok).toBe(false);
    const hsHeader = b64({ alg: 'HS256', typ: 'countersign-approval+jwt', kid: 'ed1' });
    const pub = ed.publicKey.export({ format: 'pem', type: 'spki' });
    const forged = createHmac('sha256', pub).update(`${hsHeader}.${p}`).digest('base64url');
    expect(verifyApprovalToken(`${hsHeader}.${p}.${forged}`, call, { keyring: ring, now: NOW })).toMatchObject({
      reason: 'algorithm_mismatch',
    });
  });

  it('refuses unknown header parameters, a wrong typ, unknown claims and unknown kids', () => {
    const token = mintApprovalToken(claimsFor(call), hsRing);
    const [, p, s] = parts(token);
    const check = (t: string) => verifyApprovalToken(t, call, { keyring: hsRing, now: NOW });
    expect(check(`${b64({ alg: 'HS256', typ: 'JWT', kid: 'k1' })}.${p}.${s}`)).toMatchObject({ reason: 'malformed' });
    expect(
      check(`${b64({ alg: 'HS256', typ: 'countersign-approval+jwt', kid: 'k1', jku: 'https://x' })}.${p}.${s}`),
    ).toMatchObject({ reason: 'malformed' });
    expect(check(`${b64({ alg: 'HS256', typ: 'countersign-approval+jwt', kid: 'k9' })}.${p}.${s}`)).toMatchObject({
      reason: 'unknown_key',
    });
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const h = parts(token)[0];
    expect(check(`${h}.${b64({ ...claims, approved: true })}.${s}`)).toMatchObject({ reason: 'malformed' });
    expect(check(`${h}.${b64({ ...claims, v: 3 })}.${s}`)).toMatchObject({ reason: 'unsupported_format' });
    expect(check(`${h}.${b64({ ...claims, exp: '9999999999' })}.${s}`)).toMatchObject({ reason: 'malformed' });
  });

  it('rotation: the new key mints, the old one verifies until retired', () => {
    const old = mintApprovalToken(claimsFor(call), hsRing);
    const rotated = hsRing.rotate(hmacKey('k2', Buffer.alloc(32, 9)));
    expect(rotated.active().kid).toBe('k2');
    expect(verifyApprovalToken(old, call, { keyring: rotated, now: NOW }).ok).toBe(true);
    const fresh = mintApprovalToken(claimsFor(call), rotated);
    expect(parts(fresh)[0]).not.toBe(parts(old)[0]);
    const retired = rotated.retire('k1');
    expect(verifyApprovalToken(old, call, { keyring: retired, now: NOW })).toMatchObject({ reason: 'unknown_key' });
    expect(verifyApprovalToken(fresh, call, { keyring: retired, now: NOW }).ok).toBe(true);
  });

  it('refuses short secrets and reads keys from the environment', () => {
    expect(() => new Keyring([hmacKey('k1', Buffer.alloc(31))])).toThrow(/at least 32 bytes/);
    expect(() => keyringFromEnv({})).toThrow(/COUNTERSIGN_MASTER_SECRET/);
    expect(() => keyringFromEnv({ COUNTERSIGN_MASTER_SECRET: 'ab'.repeat(32) })).not.toThrow();
    expect(() => keyringFromEnv({ COUNTERSIGN_MASTER_SECRET: 'ab'.repeat(31) })).toThrow(/at least 32/);
    const ring = keyringFromEnv({
      COUNTERSIGN_MASTER_SECRET: 'cd'.repeat(32),
      COUNTERSIGN_KEY_ID: 'k2',
      COUNTERSIGN_PREVIOUS_SECRETS: `k1:${SECRET.toString('hex')}`,
    });
    expect(ring.active().kid).toBe('k2');
    const old = mintApprovalToken(claimsFor(call), hsRing);
    expect(verifyApprovalToken(old, call, { keyring: ring, now: NOW }).ok).toBe(true);
  });

  it('per-run keys differ between runs and are stable for one run', () => {
    expect(deriveRunKey(SECRET, 'run-1').equals(deriveRunKey(SECRET, 'run-1'))).toBe(true);
    expect(deriveRunKey(SECRET, 'run-1').equals(deriveRunKey(SECRET, 'run-2'))).toBe(false);
    expect(deriveRunKey(SECRET, 'run-1').equals(deriveRunKey(SECRET, 'run-1', 'other-purpose'))).toBe(false);
  });

  it('an RSA or P-256 key is refused as an EdDSA key', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() => new Keyring([{ kid: 'x', alg: 'EdDSA', status: 'verify', publicKey }])).toThrow(/Ed25519/);
  });
});

describe('binding properties', () => {
  const token = mintApprovalToken(claimsFor(call), hsRing);
  const fields: Array<keyof ExpectedCall> = [
    'runId',
    'sessionId',
    'callId',
    'toolName',
    'definitionDigest',
    'argsDigest',
    'principal',
  ];

  it('changing any single bound field of the call fails verification (10,000 runs)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.string({ minLength: 1, maxLength: 70 }), (field, value) => {
        fc.pre(value !== call[field]);
        const result = verifyApprovalToken(token, { ...call, [field]: value }, { keyring: hsRing, now: NOW });
        return !result.ok;
      }),
      { numRuns: 10_000 },
    );
  });

  it('changing any single claim of a valid token fails verification (10,000 runs)', () => {
    const [h, p, s] = parts(token);
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const claimKeys = Object.keys(claims);
    const anyJson = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string()));
    fc.assert(
      fc.property(fc.constantFrom(...claimKeys), anyJson, (key, value) => {
        fc.pre(JSON.stringify(value) !== JSON.stringify(claims[key]));
        const edited = `${h}.${b64({ ...claims, [key]: value })}.${s}`;
        return !verifyApprovalToken(edited, call, { keyring: hsRing, now: NOW }).ok;
      }),
      { numRuns: 10_000 },
    );
  });

  it('a token minted for any other call never verifies for this one (1,000 runs)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }), (field, value) => {
        const other = { ...call, [field]: value.toLowerCase() };
        fc.pre(other[field] !== call[field]);
        const t = mintApprovalToken(claimsFor(other), hsRing);
        return !verifyApprovalToken(t, call, { keyring: hsRing, now: NOW }).ok;
      }),
      { numRuns: 1_000 },
    );
  });
});
