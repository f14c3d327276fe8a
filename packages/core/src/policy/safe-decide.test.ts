import { describe, expect, it } from 'vitest';
import { RulePolicy } from './rule-policy.ts';
import { decideSafely, decideSafelyNow } from './safe-decide.ts';
import type { PolicyEngine, PolicyInput, Verdict } from './types.ts';

function policyInput(toolName: string, args: unknown = {}): PolicyInput {
  return { toolName, args, principal: 'user@example.com', runId: 'run-1', sessionId: 'session-1' };
}

const POLICY_ERROR = { kind: 'deny', ruleId: undefined, reason: 'policy_error' } as const;
const UNKNOWN_VERDICT = { kind: 'deny', ruleId: undefined, reason: 'unknown_verdict' } as const;

/** An engine that returns whatever it is given, typed or not. */
function returning(value: unknown): PolicyEngine {
  return { decide: () => value as Verdict };
}

const APPROVAL = { eligible: { roles: ['finance'] }, requiredApprovals: 2, ttlSeconds: 600 };

describe('decideSafely', () => {
  it('passes well-formed verdicts through, sync or async', async () => {
    expect(await decideSafely(returning({ kind: 'allow', ruleId: 'r' }), policyInput('t'))).toEqual({
      kind: 'allow',
      ruleId: 'r',
    });
    const approve = { kind: 'approve', ruleId: 'r', approval: APPROVAL };
    expect(await decideSafely(returning(Promise.resolve(approve)), policyInput('t'))).toEqual(approve);
    const deny = { kind: 'deny', ruleId: undefined, reason: 'unclassified_tool' };
    expect(await decideSafely(returning(deny), policyInput('t'))).toEqual(deny);
    expect(await decideSafely(returning({ kind: 'deny', reason: 'policy_deny' }), policyInput('t'))).toEqual({
      kind: 'deny',
      ruleId: undefined,
      reason: 'policy_deny',
    });
  });

  it('works with RulePolicy', async () => {
    const engine = new RulePolicy({ version: 1, rules: [{ tool: 'a', verdict: 'allow' }] });
    expect(await decideSafely(engine, policyInput('a'))).toEqual({ kind: 'allow', ruleId: 'rule-0', namesTool: true });
    expect(await decideSafely(engine, policyInput('b'))).toMatchObject({ kind: 'deny', reason: 'unclassified_tool' });
  });

  it('turns a throwing engine into policy_error', async () => {
    const engine: PolicyEngine = {
      decide: () => {
        throw new Error('boom');
      },
    };
    expect(await decideSafely(engine, policyInput('t'))).toEqual(POLICY_ERROR);
    expect(await decideSafely(null as unknown as PolicyEngine, policyInput('t'))).toEqual(POLICY_ERROR);
    expect(await decideSafely({} as PolicyEngine, policyInput('t'))).toEqual(POLICY_ERROR);
  });

  it('turns a rejecting async engine into policy_error', async () => {
    const engine: PolicyEngine = { decide: async () => Promise.reject(new Error('opa unreachable')) };
    expect(await decideSafely(engine, policyInput('t'))).toEqual(POLICY_ERROR);
    const rejectsWithNothing: PolicyEngine = { decide: () => Promise.reject(undefined) };
    expect(await decideSafely(rejectsWithNothing, policyInput('t'))).toEqual(POLICY_ERROR);
  });

  it('denies with policy_error when the engine does not answer in time', async () => {
    const hanging: PolicyEngine = { decide: () => new Promise<Verdict>(() => {}) };
    expect(await decideSafely(hanging, policyInput('t'), { timeoutMs: 10 })).toEqual(POLICY_ERROR);
    const slowAllow: PolicyEngine = {
      decide: () => new Promise<Verdict>((resolve) => setTimeout(() => resolve({ kind: 'allow', ruleId: 'r' }), 50)),
    };
    expect(await decideSafely(slowAllow, policyInput('t'), { timeoutMs: 5 })).toEqual(POLICY_ERROR);
    expect(await decideSafely(slowAllow, policyInput('t'), { timeoutMs: 5_000 })).toEqual({ kind: 'allow', ruleId: 'r' });
  });

  it.each([
    ['an unknown kind', { kind: 'maybe', ruleId: 'r' }],
    ['approve without approval', { kind: 'approve', ruleId: 'r' }],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'allow'],
    ['an array', [{ kind: 'allow', ruleId: 'r' }]],
    ['allow without ruleId', { kind: 'allow' }],
    ['allow with empty ruleId', { kind: 'allow', ruleId: '' }],
    ['allow with numeric ruleId', { kind: 'allow', ruleId: 1 }],
    ['uppercase kind', { kind: 'ALLOW', ruleId: 'r' }],
    ['requiredApprovals 0', { kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, requiredApprovals: 0 } }],
    ['requiredApprovals 1.5', { kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, requiredApprovals: 1.5 } }],
    ['requiredApprovals "2"', { kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, requiredApprovals: '2' } }],
    ['ttlSeconds 0', { kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, ttlSeconds: 0 } }],
    ['ttlSeconds Infinity', { kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, ttlSeconds: Infinity } }],
    ['ttlSeconds over the cap', { kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, ttlSeconds: 10_000_000 } }],
    ['eligible missing', { kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, eligible: undefined } }],
    ['nobody eligible', { kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, eligible: { principalSelf: false } } }],
    ['roles not strings', { kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, eligible: { roles: [1] } } }],
    ['deny with unknown reason', { kind: 'deny', ruleId: 'r', reason: 'because' }],
    ['deny without reason', { kind: 'deny', ruleId: 'r' }],
  ])('turns %s into unknown_verdict', async (_, value) => {
    expect(await decideSafely(returning(value), policyInput('t'))).toEqual(UNKNOWN_VERDICT);
    expect(await decideSafely(returning(Promise.resolve(value)), policyInput('t'))).toEqual(UNKNOWN_VERDICT);
  });

  it('denies a verdict whose fields throw when read', async () => {
    // Reading `then` throws while the result is awaited: an error while deciding.
    const trapsEverything = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(await decideSafely(returning(trapsEverything), policyInput('t'))).toEqual(POLICY_ERROR);
    // Awaits fine, then throws while its fields are checked.
    const trapsKind = new Proxy(
      {},
      {
        get(_, key) {
          if (key === 'then') return undefined;
          throw new Error('trap');
        },
      },
    );
    expect(await decideSafely(returning(trapsKind), policyInput('t'))).toEqual(UNKNOWN_VERDICT);
  });

  it('returns a copy without extra fields, detached from the engine', async () => {
    const eligible = { roles: ['finance'] };
    const raw = { kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, eligible }, extra: 'x' };
    const verdict = await decideSafely(returning(raw), policyInput('t'));
    eligible.roles.push('everyone');
    expect(verdict).toEqual({ kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, eligible: { roles: ['finance'] } } });
  });
});

describe('decideSafelyNow (the gate hot path: no promise for a synchronous engine)', () => {
  it('answers a synchronous engine in the same turn, with the same verdicts', () => {
    const engine = new RulePolicy({ version: 1, rules: [{ tool: 'a', verdict: 'allow' }] });
    const allowed = decideSafelyNow(engine, policyInput('a'));
    expect(allowed).not.toBeInstanceOf(Promise);
    expect(allowed).toEqual({ kind: 'allow', ruleId: 'rule-0', namesTool: true });
    expect(decideSafelyNow(engine, policyInput('b'))).toMatchObject({ kind: 'deny', reason: 'unclassified_tool' });
  });

  it('still denies what decideSafely denies, without throwing', async () => {
    const throwing: PolicyEngine = {
      decide: () => {
        throw new Error('boom');
      },
    };
    expect(decideSafelyNow(throwing, policyInput('t'))).toEqual(POLICY_ERROR);
    expect(decideSafelyNow(returning({ kind: 'maybe', ruleId: 'r' }), policyInput('t'))).toEqual(UNKNOWN_VERDICT);
    expect(decideSafelyNow(returning({ kind: 'allow' }), policyInput('t'))).toEqual(UNKNOWN_VERDICT);
    // A verdict whose `then` throws when read: not a verdict, never an exception.
    const trapped = new Proxy({ kind: 'allow', ruleId: 'r' }, {
      get(target, key) {
        if (key === 'then') throw new Error('trap');
        return Reflect.get(target, key);
      },
    });
    expect(decideSafelyNow(returning(trapped), policyInput('t'))).toEqual(POLICY_ERROR);
    // A thenable that never settles is held to the timeout; a rejecting one is policy_error.
    const hanging = decideSafelyNow({ decide: () => new Promise<Verdict>(() => {}) }, policyInput('t'), { timeoutMs: 10 });
    expect(hanging).toBeInstanceOf(Promise);
    expect(await hanging).toEqual(POLICY_ERROR);
    expect(await decideSafelyNow({ decide: () => Promise.reject(new Error('x')) }, policyInput('t'))).toEqual(POLICY_ERROR);
    // A bare thenable (not a Promise) is adopted as Promise.resolve would.
    // biome-ignore lint/suspicious/noThenProperty: the point of the test is a thenable that is not a Promise.
    const thenable = { then: (resolve: (v: unknown) => void) => resolve({ kind: 'allow', ruleId: 'r' }) };
    expect(await decideSafelyNow(returning(thenable), policyInput('t'))).toEqual({ kind: 'allow', ruleId: 'r' });
  });
});
