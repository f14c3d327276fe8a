import { afterEach, describe, expect, it } from 'vitest';
import type { AuditLog, AuditRecord } from '../audit/types.ts';
import { verifyChain } from '../audit/verify-chain.ts';
import { verdictOf } from '../audit/step-facts.ts';
import { sha256Hex } from '../digest.ts';
import type { IntentConfig, IntentMatcher, IntentMatchInput, IntentMatchResult } from '../gate/intent/types.ts';
import type { LedgerStore } from '../ledger/types.ts';
import { makeGateFixture } from './gate-fixture.ts';

export interface IntentHarness {
  /** A ledger whose audit records go to `audit` (in its transactions when the store holds both). */
  ledger: LedgerStore;
  audit: AuditLog;
  cleanup?: () => Promise<void>;
}

/** A distinctive task sentence: the audit chain must never contain it. */
export const INTENT_TASK = 'Summarize last week’s failing tests in auth-service for Jane Q. Doe';

/** A matcher that answers from a script and counts every question it is asked. */
export function scriptedMatcher(answer: (input: IntentMatchInput, signal?: AbortSignal) => Promise<IntentMatchResult> | IntentMatchResult) {
  const asked: IntentMatchInput[] = [];
  const matcher: IntentMatcher = {
    id: 'scripted',
    async match(input, signal) {
      asked.push(input);
      return await answer(input, signal);
    },
  };
  return { matcher, asked };
}

const say = (decision: IntentMatchResult['decision'], score = 0.5) => () => ({ decision, score, matcher: 'scripted' });
const ADMIN = { id: 'ada', roles: ['admin'] };

/**
 * The gate's optional intent stage on one store: it can only deny (`intent_mismatch`) or
 * route to a person, never loosen a policy verdict; it fails closed; its verdict from
 * propose time is kept (dispatch never asks the matcher again); the audit chain carries
 * the task's digest, the matcher, score and decision, never the task text.
 */
export function runIntentConformance(name: string, open: () => Promise<IntentHarness>): void {
  describe(`intent stage (${name})`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0)) await c();
    });
    async function fixture(intent: IntentConfig) {
      const h = await open();
      if (h.cleanup) cleanups.push(h.cleanup);
      return makeGateFixture({ ledger: h.ledger, audit: h.audit, intent });
    }
    async function records(audit: AuditLog): Promise<AuditRecord[]> {
      return await audit.read({ limit: 10_000 });
    }

    it('mismatch: an allowed tool is denied with intent_mismatch, nothing is recorded, and the audit has the digest and score', async () => {
      const { matcher } = scriptedMatcher(say('mismatch', 0.07));
      const f = await fixture({ matcher });
      const call = f.call({ toolName: 'read_file', arguments: '{}', task: INTENT_TASK });
      const out = await f.gate.propose(call);
      expect(out).toMatchObject({ status: 'denied', reason: 'intent_mismatch' });
      // Not recorded: no authorize (which never asks the matcher) can find it allowed by policy.
      expect(await f.ledger.findProposalByCall(call.runId, call.callId)).toBeUndefined();
      expect(await f.gate.dispatch(f.dispatchFor(call))).toMatchObject({ status: 'not_approved', reason: 'unknown_call' });
      expect(f.executions).toHaveLength(0);
      const refusal = (await records(f.audit)).find((r) => r.reason === 'intent_mismatch');
      expect(refusal).toMatchObject({
        type: 'rejection',
        toolName: 'read_file',
        detail: { intent: { taskDigest: sha256Hex(INTENT_TASK), matcher: 'scripted', score: 0.07, decision: 'mismatch', effect: 'deny' } },
      });
      expect(await verifyChain(await records(f.audit))).toMatchObject({ ok: true });
    });

    it('match never loosens: a policy deny stays denied (matcher not asked), an approve still needs its approval', async () => {
      const { matcher, asked } = scriptedMatcher(say('match', 0.99));
      const f = await fixture({ matcher });
      const denied = await f.gate.propose(f.call({ toolName: 'delete_repo', arguments: '{}', task: INTENT_TASK }));
      expect(denied).toMatchObject({ status: 'denied', reason: 'policy_deny' });
      expect(asked).toHaveLength(0);
      const big = f.call({ task: INTENT_TASK }); // transfer of 500: policy says approve
      expect(await f.gate.propose(big)).toMatchObject({ status: 'approval_required' });
      expect(asked).toHaveLength(1);
      expect(await f.gate.dispatch(f.dispatchFor(big))).toMatchObject({ status: 'approval_required' });
      expect(f.executions).toHaveLength(0);
    });

    it('match: the call runs, and dispatch does not ask the matcher again', async () => {
      const { matcher, asked } = scriptedMatcher(say('match', 0.9));
      const f = await fixture({ matcher });
      const call = f.call({ toolName: 'read_file', arguments: '{"path":"a"}', task: INTENT_TASK });
      expect(await f.gate.propose(call)).toMatchObject({ status: 'allowed' });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ task: INTENT_TASK, tool: { name: 'read_file' } });
      expect(asked[0]!.catalogue.map((t) => t.name)).toContain('transfer');
      expect(await f.gate.dispatch(f.dispatchFor(call))).toMatchObject({ status: 'executed' });
      expect(asked).toHaveLength(1);
      const verdict = (await records(f.audit)).map(verdictOf).find((v) => v !== undefined);
      expect(verdict).toMatchObject({ verdict: 'allow', intent: { taskDigest: sha256Hex(INTENT_TASK), decision: 'match', effect: 'none' } });
    });

    it('fails closed (deny mode, the default): a matcher that throws, hangs, or answers nonsense; a call without a task', async () => {
      const never = () => new Promise<IntentMatchResult>(() => {});
      const cases: [IntentMatcher, string][] = [
        [scriptedMatcher(() => Promise.reject(new Error('model down'))).matcher, 'matcher_error'],
        [scriptedMatcher(never).matcher, 'timeout'],
        [scriptedMatcher(() => ({ decision: 'yes' as never, score: 1, matcher: 'x' })).matcher, 'invalid_result'],
        [scriptedMatcher(() => ({ decision: 'match', score: Number.NaN, matcher: 'x' })).matcher, 'invalid_result'],
      ];
      for (const [matcher, problem] of cases) {
        const f = await fixture({ matcher, timeoutMs: 50 });
        const out = await f.gate.propose(f.call({ toolName: 'read_file', arguments: '{}', task: INTENT_TASK }));
        expect(out).toMatchObject({ status: 'denied', reason: 'intent_mismatch' });
        const refusal = (await records(f.audit)).find((r) => r.reason === 'intent_mismatch');
        expect(JSON.stringify(refusal?.detail?.intent)).toContain(problem);
        expect(f.executions).toHaveLength(0);
      }
      const { matcher, asked } = scriptedMatcher(say('match'));
      const f = await fixture({ matcher });
      expect(await f.gate.propose(f.call({ toolName: 'read_file', arguments: '{}' }))).toMatchObject({ status: 'denied', reason: 'intent_mismatch' });
      expect(asked).toHaveLength(0);
    });

    it('uncertain in approve mode routes an allowed call to a person, and dispatch holds it until approved', async () => {
      const { matcher, asked } = scriptedMatcher(() => Promise.reject(new Error('timeout upstream')));
      const f = await fixture({ matcher, uncertain: 'approve' });
      const call = f.call({ toolName: 'read_file', arguments: '{}', task: INTENT_TASK });
      const out = await f.gate.propose(call);
      if (out.status !== 'approval_required') throw new Error(JSON.stringify(out));
      // Policy alone says allow: without the kept verdict this would run now.
      expect(await f.gate.dispatch(f.dispatchFor(call))).toMatchObject({ status: 'approval_required' });
      expect(f.executions).toHaveLength(0);
      expect(await f.gate.approvals.decide(ADMIN, { requestId: out.requestId, decision: 'approve' })).toMatchObject({ ok: true });
      const issued = await f.gate.approvals.token(out.requestId);
      if (!issued.ok) throw new Error(issued.message);
      expect(await f.gate.dispatch(f.dispatchFor(call, issued.token))).toMatchObject({ status: 'executed' });
      expect(asked).toHaveLength(1);
      // A mismatch is still a denial in approve mode: only `uncertain` goes to a person.
      const g = await fixture({ matcher: scriptedMatcher(say('mismatch')).matcher, uncertain: 'approve' });
      expect(await g.gate.propose(g.call({ toolName: 'read_file', arguments: '{}', task: INTENT_TASK }))).toMatchObject({ reason: 'intent_mismatch' });
    });

    it('a task id is resolved through resolveTask; an unknown id or a failing store fails closed', async () => {
      const { matcher, asked } = scriptedMatcher(say('match'));
      const resolveTask = async (id: string) => {
        if (id === 'boom') throw new Error('store down');
        return id === 'task-1' ? INTENT_TASK : undefined;
      };
      const f = await fixture({ matcher, resolveTask });
      expect(await f.gate.propose(f.call({ toolName: 'read_file', arguments: '{}', taskId: 'task-1' }))).toMatchObject({ status: 'allowed' });
      expect(asked[0]?.task).toBe(INTENT_TASK);
      for (const taskId of ['task-2', 'boom']) {
        expect(await f.gate.propose(f.call({ toolName: 'read_file', arguments: '{}', taskId }))).toMatchObject({ status: 'denied', reason: 'intent_mismatch' });
      }
    });

    it('malformed tasks are invalid calls: both task and taskId, empty, oversized, lone surrogate', async () => {
      const f = await fixture({ matcher: scriptedMatcher(say('match')).matcher });
      for (const bad of [{ task: INTENT_TASK, taskId: 't' }, { task: ' ' }, { task: 'x'.repeat(4001) }, { task: 'a\uD800b' }, { task: 42 as never }]) {
        expect(await f.gate.propose(f.call({ toolName: 'read_file', arguments: '{}', ...bad }))).toMatchObject({ status: 'rejected', reason: 'invalid_call' });
      }
    });

    it('one model response: each call gets its own verdict; the mismatched one is refused, the others recorded in one write', async () => {
      const { matcher, asked } = scriptedMatcher(({ tool }) => ({ decision: tool.name === 'get_balance' ? 'mismatch' : 'match', score: 0.5, matcher: 'scripted' }));
      const f = await fixture({ matcher });
      const outcomes = await f.gate.proposeResponse({
        runId: 'run-batch',
        sessionId: 's',
        principal: 'user:42',
        task: INTENT_TASK,
        toolCalls: [
          { id: 'c1', name: 'read_file', arguments: '{}' },
          { id: 'c2', name: 'get_balance', arguments: '{}' },
          { id: 'c3', name: 'transfer', arguments: '{"amount":5,"to":"bob"}' },
        ],
      });
      expect(outcomes.map((o) => o.status)).toEqual(['allowed', 'denied', 'allowed']);
      expect(outcomes[1]).toMatchObject({ reason: 'intent_mismatch' });
      expect(asked.map((a) => a.task)).toEqual([INTENT_TASK, INTENT_TASK, INTENT_TASK]);
      expect(await f.ledger.findProposalByCall('run-batch', 'c2')).toBeUndefined();
      expect(await f.ledger.findProposalByCall('run-batch', 'c3')).toBeDefined();
    });

    it('the audit chain never contains the task text, whatever the decision', async () => {
      for (const decision of ['match', 'mismatch', 'uncertain'] as const) {
        const f = await fixture({ matcher: scriptedMatcher(say(decision)).matcher, uncertain: decision === 'uncertain' ? 'approve' : 'deny' });
        await f.gate.propose(f.call({ toolName: 'read_file', arguments: '{}', task: INTENT_TASK }));
        await f.gate.proposeResponse({ runId: 'run-2', sessionId: 's', principal: 'user:42', task: INTENT_TASK, toolCalls: [{ id: 'c1', name: 'get_balance', arguments: '{}' }] });
        const text = JSON.stringify(await records(f.audit));
        expect(text).toContain(sha256Hex(INTENT_TASK));
        expect(text).not.toContain('auth-service');
      }
    });
  });
}

/** Markers of conversation text an integration must keep out of the audit chain (the task and its system prompt). */
export const INTENT_SYSTEM_MARKER = 'ACME-SYSTEM-PROMPT-7731';

/** The chain recorded an intent refusal and holds neither the task sentence nor any other conversation text. */
export async function expectIntentRefusalWithoutText(audit: AuditLog): Promise<void> {
  const text = JSON.stringify(await audit.read({ limit: 10_000 }));
  expect(text).toContain('intent_mismatch');
  expect(text).not.toContain(INTENT_TASK);
  expect(text).not.toContain(INTENT_SYSTEM_MARKER);
}

/** A call proposed without a task was refused fail-closed: a null task digest, decision uncertain, no task text. */
export async function expectNoTaskRefusal(audit: AuditLog): Promise<void> {
  const records = await audit.read({ limit: 10_000 });
  expect(records.find((r) => r.reason === 'intent_mismatch')?.detail).toMatchObject({ intent: { taskDigest: null, decision: 'uncertain', effect: 'deny' } });
  expect(JSON.stringify(records)).not.toContain(INTENT_TASK);
}
