import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RECIPE_ID } from '../canonical/recipe.ts';
import { sha256Hex } from '../digest.ts';
import { DECISION_RECORD_TYPE, DECISION_RECORD_VERSION, verifyDecisionRecord } from './decision-record.ts';
import { DECISION_RECORD_PURPOSE, deriveRunKey } from './derive-run-key.ts';
import { type ExpectedCall, TOKEN_FORMAT_VERSION, TOKEN_TYPE } from './format.ts';
import { hmacKey, Keyring } from './keyring.ts';
import { verifyApprovalToken } from './verify.ts';

// Every token below is MACed with the real per-run key, so only the duplicate check can refuse it.
const SECRET = Buffer.alloc(32, 5);
const ring = new Keyring([hmacKey('k1', SECRET)]);
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const nowS = NOW / 1000;
const args = sha256Hex('{"amount":10}');
const enc = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

const expected: ExpectedCall = { runId: 'run-1', sessionId: 's', callId: 'c', toolName: 'transfer', argsDigest: args, principal: 'user:1' };
const claims = JSON.stringify({
  v: TOKEN_FORMAT_VERSION,
  canon: RECIPE_ID,
  run: 'run-1',
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
}).slice(1, -1);

function signed(headerText: string, payloadText: string, purpose?: string): string {
  const input = `${enc(headerText)}.${enc(payloadText)}`;
  return `${input}.${createHmac('sha256', deriveRunKey(SECRET, 'run-1', purpose)).update(input).digest('base64url')}`;
}
const verify = (token: string) => verifyApprovalToken(token, expected, { keyring: ring, now: NOW });
const HEADER = `"alg":"HS256","typ":"${TOKEN_TYPE}","kid":"k1"`;

describe('JWS: duplicate member names are refused, not resolved', () => {
  it('the same bytes without duplicates verify (the fixture is honest)', () => {
    expect(verify(signed(`{${HEADER}}`, `{${claims}}`))).toMatchObject({ ok: true });
  });

  it('approval token header with a duplicate alg, kid or typ', () => {
    for (const header of [
      `{"alg":"none",${HEADER}}`,
      `{"kid":"k9",${HEADER}}`,
      `{"typ":"countersign-decision+jwt",${HEADER}}`,
      `{${HEADER},"kid":"k1"}`,
    ]) {
      const result = verify(signed(header, `{${claims}}`));
      expect(result).toMatchObject({ ok: false, reason: 'malformed' });
      expect(result.ok || result.message).toMatch(/header has a duplicate key/);
    }
  });

  it('approval token payload with a duplicated claim (first and last value differ)', () => {
    for (const payload of [
      `{"run":"run-2",${claims}}`,
      `{"args":"${'0'.repeat(64)}",${claims}}`,
      `{"exp":${nowS + 999_999},${claims}}`,
      `{${claims},"jti":"tok-1"}`,
    ]) {
      const result = verify(signed(`{${HEADER}}`, payload));
      expect(result).toMatchObject({ ok: false, reason: 'malformed' });
      expect(result.ok || result.message).toMatch(/payload has a duplicate key/);
    }
  });

  it('decision record header and payload with duplicates', () => {
    const header = `"alg":"HS256","typ":"${DECISION_RECORD_TYPE}","kid":"k1"`;
    const body = JSON.stringify({
      v: DECISION_RECORD_VERSION,
      canon: RECIPE_ID,
      run: 'run-1',
      sid: 's',
      call: 'c',
      tool: 'transfer',
      def: null,
      args,
      sub: 'user:1',
      req: 'req-1',
      prop: 'p-1',
      apr: 'alice',
      dec: 'approve',
      rsn: null,
      edit: null,
      at: NOW,
    }).slice(1, -1);
    const check = (h: string, p: string) => verifyDecisionRecord(signed(h, p, DECISION_RECORD_PURPOSE), ring);
    expect(check(`{${header}}`, `{${body}}`)).toMatchObject({ ok: true });
    for (const [h, p] of [
      [`{"alg":"EdDSA",${header}}`, `{${body}}`],
      [`{${header},"typ":"${DECISION_RECORD_TYPE}"}`, `{${body}}`],
      [`{${header}}`, `{"dec":"deny",${body}}`],
      [`{${header}}`, `{${body},"apr":"mallory"}`],
    ] as const) {
      const result = check(h, p);
      expect(result).toMatchObject({ ok: false, reason: 'malformed' });
      expect(result.ok || result.message).toMatch(/(header|payload) has a duplicate key/);
    }
  });
});
