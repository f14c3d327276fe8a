import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../digest.ts';
import { generateEd25519Key, hmacKey, Keyring } from './keyring.ts';
import { approvalClaimsOf, type MintInput, mintApprovalToken } from './mint.ts';
import { verifyApprovalToken } from './verify.ts';
import { verifyAsMinted } from './verify-minted.ts';

// verifyAsMinted accepts a token only when it is, byte for byte, the token this server
// mints for the ledger row; anything else is left to the usual verification (undefined),
// which must then give the answer it always gave.
const SECRET = Buffer.alloc(32, 7);
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const nowS = NOW / 1000;
const row: MintInput = {
  run: 'run-1',
  sid: 's-1',
  call: 'c-1',
  tool: 'transfer',
  def: 'd'.repeat(64),
  args: sha256Hex('{"amount":10}'),
  sub: 'user:1',
  apr: ['alice'],
  req: 'req-1',
  iat: nowS - 10,
  exp: nowS + 300,
  jti: 'tok-1',
};
const expectedCall = { runId: 'run-1', sessionId: 's-1', callId: 'c-1', toolName: 'transfer', definitionDigest: 'd'.repeat(64), argsDigest: row.args, principal: 'user:1' };

describe('a token checked against the ledger row it names (the server that minted it)', () => {
  for (const [alg, ring] of [
    ['HS256', new Keyring([hmacKey('k1', SECRET)])],
    ['Ed25519', new Keyring([generateEd25519Key('e1')])],
  ] as const) {
    const options = { keyring: ring, now: NOW };
    const token = mintApprovalToken(row, ring);

    it(`${alg}: the minted token is recognised, its claims those of the row`, () => {
      expect(verifyAsMinted(token, row, options)).toEqual({ ok: true, claims: approvalClaimsOf(row), kid: ring.active().kid });
    });

    it(`${alg}: any single changed character of the token is not recognised, and the usual check refuses it`, () => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
      for (let i = 0; i < token.length; i++) {
        const swapped = alphabet[(alphabet.indexOf(token[i]!) + 1) % alphabet.length]!;
        const forged = token.slice(0, i) + swapped + token.slice(i + 1);
        expect(verifyAsMinted(forged, row, options)).toBeUndefined();
        expect(verifyApprovalToken(forged, expectedCall, options).ok).toBe(false);
      }
      for (const forged of [`${token}A`, token.slice(0, -1), `${token} `, '', undefined, 42]) expect(verifyAsMinted(forged, row, options)).toBeUndefined();
    });

    it(`${alg}: a token minted for another row (tool swap, argument drift, principal, run, request, approvers) is not recognised`, () => {
      const others: Partial<MintInput>[] = [{ tool: 'delete' }, { args: sha256Hex('{"amount":11}') }, { sub: 'user:2' }, { run: 'run-2' }, { req: 'req-2' }, { apr: ['mallory'] }, { jti: 'tok-2' }];
      for (const other of others) {
        expect(verifyAsMinted(mintApprovalToken({ ...row, ...other }, ring), row, options)).toBeUndefined();
      }
    });

    it(`${alg}: the row's times still apply: an expired or future token is refused even when it is the minted one`, () => {
      expect(verifyAsMinted(token, row, { keyring: ring, now: (row.exp + 10) * 1000 })).toMatchObject({ ok: false, reason: 'expired' });
      expect(verifyAsMinted(token, row, { keyring: ring, now: (row.iat - 60) * 1000 })).toMatchObject({ ok: false, reason: 'not_yet_valid' });
    });
  }

  it('a token minted under a key since rotated out of the active slot is left to the usual check, which still accepts it', () => {
    const token = mintApprovalToken(row, new Keyring([hmacKey('k-old', SECRET)]));
    const rotated = new Keyring([hmacKey('k-new', Buffer.alloc(32, 9)), hmacKey('k-old', SECRET, 'verify')]);
    expect(verifyAsMinted(token, row, { keyring: rotated, now: NOW })).toBeUndefined();
    expect(verifyApprovalToken(token, expectedCall, { keyring: rotated, now: NOW }).ok).toBe(true);
  });
});
