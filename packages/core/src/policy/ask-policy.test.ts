import { describe, expect, it } from 'vitest';
import { RulePolicy } from './rule-policy.ts';
import { askPolicy, askPolicyNow } from './ask-policy.ts';
import type { PolicyEngine, PolicyInput, Verdict } from './types.ts';

function policyInput(toolName: string, args: unknown = {}): PolicyInput {
  return { toolName, args, principal: 'user@example.com', runId: 'run-1', sessionId: 'session-1' };
}

const POLICY_ERROR = { kind: 'deny', ruleId: undefined, reason: 'policy_error' } as const;
const UNKNOWN_VERDICT = { kind: 'deny', ruleId: undefined, reason: 'unknown_verdict' } as const;

/** An engine that returns whatever it is given, typed or not. */
function returning(value: unknown): PolicyEngine {
  return { verdictFor: () => value as Verdict };
}

const APPROVAL = { eligible: { roles: ['finance'] }, requiredApprovals: 2, ttlSeconds: 600 };

describe('askPolicy', () => {
  it('passes well-formed verdicts through, sync or async', async () => {
    expect(await askPolicy(returning({ kind: 'allow', ruleId: 'r' }), policyInput('t'))).toEqual({
      kind: 'allow',
      ruleId: 'r',
    });
    const approve = { kind: 'approve', ruleId: 'r', approval: APPROVAL };
    expect(await askPolicy(returning(Promise.resolve(approve)), policyInput('t'))).toEqual(approve);
    const deny = { kind: 'deny', ruleId: undefined, reason: 'unclassified_tool' };
    expect(await askPolicy(returning(deny), policyInput('t'))).toEqual(deny);
    expect(await askPolicy(returning({ kind: 'deny', reason: 'policy_deny' }), policyInput('t'))).toEqual({
      kind: 'deny',
      ruleId: undefined,
      reason: 'policy_deny',
    });
  });

  it('works with RulePolicy', async () => {
    const engine = new RulePolicy({ version: 1, rules: [{ tool: 'a', verdict: 'allow' }] });
    expect(await askPolicy(engine, policyInput('a'))).toEqual({ kind: 'allow', ruleId: 'rule-0', namesTool: true });
    expect(await askPolicy(engine, policyInput('b'))).toMatchObject({ kind: 'deny', reason: 'unclassified_tool' });
  });

  it('turns a throwing engine into policy_error', async () => {
    const engine: PolicyEngine = {
      verdictFor: () => {
        throw new Error('boom');
      },
    };
    expect(await askPolicy(engine, policyInput('t'))).toEqual(POLICY_ERROR);
    expect(await askPolicy(null as unknown as PolicyEngine, policyInput('t'))).toEqual(POLICY_ERROR);
    expect(await askPolicy({} as PolicyEngine, policyInput('t'))).toEqual(POLICY_ERROR);
  });

  it('turns a rejecting async engine into policy_error', async () => {
    const engine: PolicyEngine = { verdictFor: async () => Promise.reject(new Error('opa unreachable')) };
    expect(await askPolicy(engine, policyInput('t'))).toEqual(POLICY_ERROR);
    const rejectsWithNothing: PolicyEngine = { verdictFor: () => Promise.reject(undefined) };
    expect(await askPolicy(rejectsWithNothing, policyInput('t'))).toEqual(POLICY_ERROR);
  });

  it('denies with policy_error when the engine does not answer in time', async () => {
    const hanging: PolicyEngine = { verdictFor: () => new Promise<Verdict>(() => {}) };
    expect(await askPolicy(hanging, policyInput('t'), { timeoutMs: 10 })).toEqual(POLICY_ERROR);
    const slowAllow: PolicyEngine = {
      verdictFor: () => new Promise<Verdict>((resolve) => setTimeout(() => resolve({ kind: 'allow', ruleId: 'r' }), 50)),
    };
    expect(await askPolicy(slowAllow, policyInput('t'), { timeoutMs: 5 })).toEqual(POLICY_ERROR);
    expect(await askPolicy(slowAllow, policyInput('t'), { timeoutMs: 5_000 })).toEqual({ kind: 'allow', ruleId: 'r' });
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
    expect(await askPolicy(returning(value), policyInput('t'))).toEqual(UNKNOWN_VERDICT);
    expect(await askPolicy(returning(Promise.resolve(value)), policyInput('t'))).toEqual(UNKNOWN_VERDICT);
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
    expect(await askPolicy(returning(trapsEverything), policyInput('t'))).toEqual(POLICY_ERROR);
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
    expect(await askPolicy(returning(trapsKind), policyInput('t'))).toEqual(UNKNOWN_VERDICT);
  });

  it('returns a copy without extra fields, detached from the engine', async () => {
    const eligible = { roles: ['finance'] };
    const raw = { kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, eligible }, extra: 'x' };
    const verdict = await askPolicy(returning(raw), policyInput('t'));
    eligible.roles.push('everyone');
    expect(verdict).toEqual({ kind: 'approve', ruleId: 'r', approval: { ...APPROVAL, eligible: { roles: ['finance'] } } });
  });
});

describe('askPolicyNow (the gate hot path: no promise for a synchronous engine)', () => {
  it('answers a synchronous engine in the same turn, with the same verdicts', () => {
    const engine = new RulePolicy({ version: 1, rules: [{ tool: 'a', verdict: 'allow' }] });
    const allowed = askPolicyNow(engine, policyInput('a'));
    expect(allowed).not.toBeInstanceOf(Promise);
    expect(allowed).toEqual({ kind: 'allow', ruleId: 'rule-0', namesTool: true });
    expect(askPolicyNow(engine, policyInput('b'))).toMatchObject({ kind: 'deny', reason: 'unclassified_tool' });
  });

  it('still denies what askPolicy denies, without throwing', async () => {
    const throwing: PolicyEngine = {
      verdictFor: () => {
        throw new Error('boom');
      },
    };
    expect(askPolicyNow(throwing, policyInput('t'))).toEqual(POLICY_ERROR);
    expect(askPolicyNow(returning({ kind: 'maybe', ruleId: 'r' }), policyInput('t'))).toEqual(UNKNOWN_VERDICT);
    expect(askPolicyNow(returning({ kind: 'allow' }), policyInput('t'))).toEqual(UNKNOWN_VERDICT);
    // A verdict whose `then` throws when read: not a verdict, never an exception.
    const trapped = new Proxy({ kind: 'allow', ruleId: 'r' }, {
      get(target, key) {
        if (key === 'then') throw new Error('trap');
        return Reflect.get(target, key);
      },
    });
    expect(askPolicyNow(returning(trapped), policyInput('t'))).toEqual(POLICY_ERROR);
    // A thenable that never settles is held to the timeout; a rejecting one is policy_error.
    const hanging = askPolicyNow({ verdictFor: () => new Promise<Verdict>(() => {}) }, policyInput('t'), { timeoutMs: 10 });
    expect(hanging).toBeInstanceOf(Promise);
    expect(await hanging).toEqual(POLICY_ERROR);
    expect(await askPolicyNow({ verdictFor: () => Promise.reject(new Error('x')) }, policyInput('t'))).toEqual(POLICY_ERROR);
    // A bare thenable (not a Promise) is adopted as Promise.resolve would.
    // biome-ignore lint/suspicious/noThenProperty: the point of the test is a thenable that is not a Promise.
    const thenable = { then: (resolve: (v: unknown) => void) => resolve({ kind: 'allow', ruleId: 'r' }) };
    expect(await askPolicyNow(returning(thenable), policyInput('t'))).toEqual({ kind: 'allow', ruleId: 'r' });
  });
});
