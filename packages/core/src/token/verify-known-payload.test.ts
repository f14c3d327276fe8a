import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RECIPE_ID } from '../canonical/recipe.ts';
import { sha256Hex } from '../digest.ts';
import { APPROVAL_TOKEN_PURPOSE, deriveRunKey } from './derive-run-key.ts';
import { type ExpectedCall, TOKEN_FORMAT_VERSION, TOKEN_TYPE } from './format.ts';
import { generateEd25519Key, hmacKey, Keyring } from './keyring.ts';
import { type MintInput, mintApprovalToken, mintedPayloadOf } from './mint.ts';
import { verifyApprovalToken } from './verify.ts';
import type { KnownPayload } from './verify-signed.ts';

// With `minted` (the payload the ledger's record mints), a token carrying exactly that
// payload is not parsed: the record's claims are read instead. Every token below that
// carries another payload has a VALID MAC under the run's key (the tests mint with the key),
// so only the payload comparison keeps the record's claims from standing in for what the
// token says: with and without `minted`, the answer must be the same.
const SECRET = Buffer.alloc(32, 3);
const ring = new Keyring([hmacKey('k1', SECRET)]);
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const nowS = NOW / 1000;
const options = { keyring: ring, now: NOW };

const expected: ExpectedCall = {
  runId: 'run-1',
  sessionId: 's-1',
  callId: 'c-1',
  toolName: 'transfer',
  definitionDigest: 'd'.repeat(64),
  argsDigest: sha256Hex('{"amount":10}'),
  principal: 'user:1',
};
const record: MintInput = {
  run: 'run-1',
  sid: 's-1',
  call: 'c-1',
  tool: 'transfer',
  def: 'd'.repeat(64),
  args: expected.argsDigest,
  sub: 'user:1',
  apr: ['alice', 'bob'],
  req: 'req-1',
  iat: nowS - 10,
  exp: nowS + 300,
  jti: 'tok-1',
};
const minted = mintedPayloadOf(record) as KnownPayload;

const enc = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const HEADER = enc(JSON.stringify({ alg: 'HS256', typ: TOKEN_TYPE, kid: 'k1' }));
/** A token over exactly `payloadText`, MACed with the real per-run key. */
function signed(payloadText: string): string {
  const input = `${HEADER}.${enc(payloadText)}`;
  return `${input}.${createHmac('sha256', deriveRunKey(SECRET, 'run-1', APPROVAL_TOKEN_PURPOSE)).update(input).digest('base64url')}`;
}
const claimsText = (overrides: Record<string, unknown> = {}) => JSON.stringify({ v: TOKEN_FORMAT_VERSION, canon: RECIPE_ID, ...record, ...overrides });

const withMinted = (token: unknown, known: KnownPayload | undefined = minted, call = expected) => verifyApprovalToken(token, call, options, known);
const plain = (token: unknown, call = expected) => verifyApprovalToken(token, call, options);

describe('approval tokens against the payload the ledger record mints', () => {
  it("is the minter's own segment and claims", () => {
    const token = mintApprovalToken(record, ring);
    expect(token.split('.')[1]).toBe(minted.segment);
    expect(signed(claimsText())).toBe(token);
    expect(withMinted(token)).toEqual(plain(token));
    expect(withMinted(token)).toMatchObject({ ok: true, kid: 'k1', claims: { jti: 'tok-1', apr: ['alice', 'bob'] } });
  });

  it('reads a validly MACed token with any other payload itself: the same answer as without it', () => {
    const variants: [string, ReturnType<typeof plain>['ok'], string?][] = [
      [claimsText({ args: sha256Hex('{"amount":10000}') }), false, 'args_mismatch'], // the record's claims would pass
      [claimsText({ jti: 'tok-2' }), true], // accepted with ITS token id (the consume refuses it)
      [claimsText({ iat: nowS - 3600, exp: nowS - 60 }), false, 'expired'],
      [claimsText({ apr: ['mallory'] }), true],
      [claimsText({ extra: 1 }), false, 'malformed'],
      [`${claimsText().slice(0, -1)},"args":"${'0'.repeat(64)}"}`, false, 'malformed'], // a duplicate claim
      [JSON.stringify({ canon: RECIPE_ID, v: TOKEN_FORMAT_VERSION, ...record }), true], // same claims, other order
      [claimsText().replace(',', ', '), true], // whitespace
    ];
    for (const [text, ok, reason] of variants) {
      const token = signed(text);
      const answer = withMinted(token);
      expect(answer, text).toEqual(plain(token));
      expect(answer, text).toMatchObject(ok ? { ok: true, claims: JSON.parse(text) } : { ok: false, reason });
    }
  });

  it('checks the form, signature, time and binding of the minted token as always', () => {
    const token = mintApprovalToken(record, ring);
    const [h, p, s] = token.split('.') as [string, string, string];
    const flipped = `${s.slice(0, 5)}${s[5] === 'A' ? 'B' : 'A'}${s.slice(6)}`;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = `${s.slice(0, -1)}${alphabet[alphabet.indexOf(s.at(-1)!) | 1]}`; // same bytes, extra bits
    for (const bad of [`${h}.${p}.${flipped}`, `${h}.${p}.${respelled}`, `${h}.${p}.${s}=`, `${h}.${p}.`, `${h}.${p}`, `${h}.${p}.${s}.x`, `${h}+.${p}.${s}`, `.${p}.${s}`]) {
      expect(withMinted(bad), bad).toEqual(plain(bad));
      expect(withMinted(bad)).toMatchObject({ ok: false });
    }
    const late = { keyring: ring, now: (record.exp + 10) * 1000 };
    expect(verifyApprovalToken(token, expected, late, minted)).toMatchObject({ ok: false, reason: 'expired' });
    expect(withMinted(token, minted, { ...expected, principal: 'user:2' })).toMatchObject({ ok: false, reason: 'principal_mismatch' });
    expect(withMinted(token, minted, { ...expected, runId: 'run-2' })).toMatchObject({ ok: false, reason: 'run_mismatch' });
    expect(verifyApprovalToken(token, expected, { keyring: new Keyring([hmacKey('k2', SECRET)]), now: NOW }, minted)).toMatchObject({ ok: false, reason: 'unknown_key' });
  });

  it("still applies the claims reader to the record's claims", () => {
    for (const odd of [{ apr: [] }, { exp: record.iat }, { jti: '' }] satisfies Partial<MintInput>[]) {
      const input = { ...record, ...odd };
      const token = mintApprovalToken(input, ring);
      const known = mintedPayloadOf(input);
      expect(known, JSON.stringify(odd)).toBeDefined();
      expect(withMinted(token, known), JSON.stringify(odd)).toEqual(plain(token));
      expect(withMinted(token, known)).toMatchObject({ ok: false, reason: 'malformed' });
    }
  });

  it('is not offered where reading the payload would not give the record: a lone surrogate, an unsafe time', () => {
    const lone = { ...record, sid: 's-\ud800' };
    expect(mintedPayloadOf(lone)).toBeUndefined();
    expect(plain(mintApprovalToken(lone, ring), { ...expected, sessionId: 's-\ud800' })).toMatchObject({ ok: false, reason: 'malformed' });
    expect(mintedPayloadOf({ ...record, exp: 2 ** 53 })).toBeUndefined();
    expect(mintedPayloadOf({ ...record, iat: 1.5 })).toBeUndefined();
  });

  it('takes the key and algorithm from the keyring (an Ed25519 token)', () => {
    const ed = new Keyring([generateEd25519Key('ed1')]);
    const edToken = mintApprovalToken(record, ed);
    expect(verifyApprovalToken(edToken, expected, { keyring: ed, now: NOW }, minted)).toMatchObject({ ok: true, kid: 'ed1' });
    expect(verifyApprovalToken(edToken, expected, options, minted)).toMatchObject({ ok: false, reason: 'unknown_key' });
  });

  it('never throws on junk', () => {
    for (const junk of [undefined, null, 42, '', '.', '..', 'a.b.c', {}, `x.${minted.segment}.y`, 'x'.repeat(10_000)]) {
      expect(withMinted(junk)).toEqual(plain(junk));
    }
  });
});
