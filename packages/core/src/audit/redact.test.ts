import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../digest.ts';
import { buildRecord } from './chain.ts';
import { auditDetailFor, AUDIT_REDACTED } from './redact.ts';
import { verifyChain } from './verify-chain.ts';

const args = {
  to: 'alice@example.com',
  amount: 10,
  password: 'hunter2',
  nested: { apiKey: 'sk-live-123', items: [{ authorization: 'Bearer abc', note: 'fine' }], ok: true, none: null },
};

describe('auditDetailFor', () => {
  it('keeps nothing from the arguments of a sensitive tool', () => {
    const detail = auditDetailFor(args, { sensitive: true });
    expect(detail).toEqual({ argsRedacted: true });
    const text = JSON.stringify(detail);
    for (const secret of ['alice', 'hunter2', 'sk-live', '10']) expect(text).not.toContain(secret);
  });

  it('copies the arguments of other tools with secret-looking keys redacted', () => {
    const detail = auditDetailFor(args, { sensitive: false });
    expect(detail).toEqual({
      args: {
        to: 'alice@example.com',
        amount: 10,
        password: AUDIT_REDACTED,
        nested: { apiKey: AUDIT_REDACTED, items: [{ authorization: AUDIT_REDACTED, note: 'fine' }], ok: true, none: null },
      },
    });
    const text = JSON.stringify(detail);
    for (const secret of ['hunter2', 'sk-live', 'Bearer']) expect(text).not.toContain(secret);
    expect(args.password).toBe('hunter2');
  });

  it('takes a custom key pattern, global flag or not', () => {
    for (const secretKeys of [/^to$/, /^to$/g]) {
      const detail = auditDetailFor([{ to: 'a' }, { to: 'b' }, { to: 'c' }], { sensitive: false, secretKeys });
      expect(detail).toEqual({ args: [{ to: AUDIT_REDACTED }, { to: AUDIT_REDACTED }, { to: AUDIT_REDACTED }] });
    }
  });

  it('produces detail that buildRecord accepts, next to the digest that binds the arguments', () => {
    const canonicalArgs = '{"amount":10}';
    const deep = JSON.parse(`${'['.repeat(100)}1${']'.repeat(100)}`);
    const proto = JSON.parse('{"__proto__":{"x":1}}');
    for (const value of [args, deep, proto, 'plain', 3, null]) {
      for (const sensitive of [true, false]) {
        const record = buildRecord(undefined, {
          type: 'proposal',
          at: 0,
          argsDigest: sha256Hex(canonicalArgs),
          detail: { ruleId: 'r1', ...auditDetailFor(value, { sensitive }) },
        });
        expect(verifyChain([record]).ok).toBe(true);
      }
    }
    const protoDetail = auditDetailFor(proto, { sensitive: false });
    expect(JSON.stringify(protoDetail)).toBe('{"args":{"__proto__":{"x":1}}}');
  });

  it('rejects values that are not JSON', () => {
    for (const value of [{ f: () => 1 }, [Number.NaN], { n: 1n }, Symbol('s')]) {
      expect(() => auditDetailFor(value, { sensitive: false })).toThrow(
        expect.objectContaining({ name: 'AuditLogError', code: 'invalid_event' }),
      );
    }
    expect(auditDetailFor({ f: () => 1 }, { sensitive: true })).toEqual({ argsRedacted: true });
  });
});
