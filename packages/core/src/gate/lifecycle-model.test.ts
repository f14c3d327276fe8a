import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import { MemoryDefinitionStore } from '../catalog/memory-definition-store.ts';
import type { DefinitionStore } from '../catalog/types.ts';
import { MemoryLedger } from '../ledger/memory-ledger.ts';
import type { LedgerStore } from '../ledger/types.ts';
import {
  describeLifecycleModel,
  KNOWN_DEFECTS,
  type LifecycleHarness,
  replayHistory,
  runLifecycleModel,
  type Step,
} from '../testing/lifecycle-model/index.ts';

/** The memory store lives in the process: a "restart" here is a new gate on the same store. */
function memoryHarness(
  wrap: (ledger: MemoryLedger) => LedgerStore = (l) => l,
  wrapDefinitions: (definitions: MemoryDefinitionStore) => DefinitionStore = (d) => d,
): () => Promise<LifecycleHarness> {
  return async () => {
    const audit = new MemoryAuditLog();
    const ledger = wrap(new MemoryLedger({ audit }));
    const definitions = wrapDefinitions(new MemoryDefinitionStore());
    return { open: async () => ({ ledger, audit, definitions, close: async () => {} }), destroy: async () => {} };
  };
}

/** The violation a failing run reports (fast-check keeps it as the cause of its report, which carries the seed and the shrunk history). */
async function violationOf(run: Promise<unknown>): Promise<string> {
  const error: unknown = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  const report = error as Error;
  expect(report.message).toMatch(/seed: -?\d+, path: "[\d:]+"/);
  return report.cause instanceof Error ? report.cause.message : report.message;
}

/** `target` with one method replaced (the defect a test injects); everything else as it is. */
function withMethod<T extends object, K extends keyof T>(target: T, name: K, replacement: T[K]): T {
  return new Proxy(target, {
    get: (t, property) => {
      if (property === name) return replacement;
      const value = Reflect.get(t, property, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
}

const NO_KNOWN_DEFECTS = Object.fromEntries(Object.keys(KNOWN_DEFECTS).map((k) => [k, false])) as Record<keyof typeof KNOWN_DEFECTS, boolean>;

describeLifecycleModel('memory store', memoryHarness(), { numRuns: 400, maxSteps: 40 });

describe('the lifecycle model finds what it is for', () => {
  it('a ledger whose consume ignores the approval (spends a revoked, expired or pending one) fails the model', async () => {
    const skipsApprovalCheck = (ledger: MemoryLedger): LedgerStore =>
      withMethod<LedgerStore, 'consume'>(ledger, 'consume', (input, audit) => ledger.consume({ ...input, approval: undefined }, audit));
    const violation = await violationOf(
      runLifecycleModel({ harness: memoryHarness(skipsApprovalCheck), numRuns: 300, maxSteps: 40, seed: 1, steps: { faults: false, restarts: false, concurrency: false } }),
    );
    expect(violation).toMatch(/authorize.*(model says|model expects)/);
    expect(violation).toContain('history as run:');
  });

  // The histories the canary replayed while lostProposeOrCompleteReplyReportedAsFailure was on:
  // a lost COMMIT reply of propose (one call, or an approval request opened with it) and of complete.
  it('a proposal or a result whose COMMIT reply is lost is answered as recorded (was known defect lostProposeOrCompleteReplyReportedAsFailure)', async () => {
    expect(KNOWN_DEFECTS.lostProposeOrCompleteReplyReportedAsFailure).toBe(false);
    const small: Step = { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c1', tool: 'read_file', amount: 50 }] } };
    const histories: { steps: Step[]; answer: string }[] = [
      { steps: [{ ...small, fault: { nth: 0, kind: 'lost_reply' } }], answer: 'propose:allowed' },
      {
        steps: [{ action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c1', tool: 'transfer', amount: 5000 }] }, fault: { nth: 0, kind: 'lost_reply' } }],
        answer: 'propose:approval_required',
      },
      { steps: [small, { action: { kind: 'authorize', agent: 'agent-a', call: 'r1/c1', token: 'none' } }, { action: { kind: 'complete', call: 'r1/c1', outcome: 'succeeded' }, fault: { nth: 0, kind: 'lost_reply' } }], answer: 'complete:ok' },
    ];
    for (const { steps, answer } of histories) {
      const stats = await replayHistory({ harness: memoryHarness(), knownDefects: NO_KNOWN_DEFECTS, steps });
      expect(stats.faultsAt, answer).toMatchObject({ [`${answer.startsWith('complete') ? 'recordResult' : 'recordProposal'}:lost_reply`]: 1 });
      expect(stats.answers[answer], answer).toBe(1);
    }
  });

  // The shrunk histories the model printed for lostReplyReportedAsFailure before the fix
  // (seeds 2 and 3 of the canary run, 300 histories): now each answer is the model's. The
  // write is store call 1 (was 2): the request and its call are one read (getRequestWithProposal).
  it('a decision, an edit, a revocation or a withdrawal whose COMMIT reply is lost is answered as done (was known defect lostReplyReportedAsFailure)', async () => {
    expect(KNOWN_DEFECTS.lostReplyReportedAsFailure).toBe(false);
    const large: Step = { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c1', tool: 'transfer', amount: 5000 }] } };
    const deploy: Step = { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c2', tool: 'deploy', amount: 50 }] } };
    const histories: Step[][] = [
      [large, { action: { kind: 'decide', approver: 'fiona', call: 'r1/c1', decision: 'approve' }, fault: { nth: 1, kind: 'lost_reply' } }],
      [large, { action: { kind: 'revoke', approver: 'fiona', call: 'r1/c1' }, fault: { nth: 1, kind: 'lost_reply' } }],
      [large, { action: { kind: 'edit', approver: 'fiona', call: 'r1/c1', amount: 50 }, fault: { nth: 1, kind: 'lost_reply' } }],
      [deploy, { action: { kind: 'decide', approver: 'bob', call: 'r1/c2', decision: 'approve' } }, { action: { kind: 'withdraw', approver: 'bob', call: 'r1/c2' }, fault: { nth: 1, kind: 'lost_reply' } }],
    ];
    const writes = ['addDecision', 'revokeApproval', 'recordEdit', 'withdrawApproval'];
    for (const [i, steps] of histories.entries()) {
      const stats = await replayHistory({ harness: memoryHarness(), knownDefects: NO_KNOWN_DEFECTS, steps });
      // The reply lost is the write's, not a read's.
      expect(stats.faultsAt).toEqual({ [`${writes[i]}:lost_reply`]: 1 });
      const last = steps.at(-1)!;
      expect(stats.answers[`${'action' in last ? last.action.kind : 'concurrent'}:ok`]).toBe(1);
    }
  });

  // A decision's records are built before the write (AuditByStatus): the fault still makes
  // the store roll the decision back from inside its transaction, not fail before it.
  it('a rollback fault on a decision reaches the store and rolls the decision back; the model explains what follows', async () => {
    const reached: string[] = [];
    const counting = (ledger: MemoryLedger): LedgerStore =>
      withMethod(ledger, 'addDecision', async (...args: Parameters<MemoryLedger['addDecision']>) => {
        reached.push(args[0]);
        return ledger.addDecision(...args);
      });
    const large: Step = { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c1', tool: 'transfer', amount: 5000 }] } };
    const decide: Step = { action: { kind: 'decide', approver: 'fiona', call: 'r1/c1', decision: 'approve' } };
    const stats = await replayHistory({
      harness: memoryHarness(counting),
      knownDefects: NO_KNOWN_DEFECTS,
      steps: [large, { ...decide, fault: { nth: 1, kind: 'rollback' } }, decide, { action: { kind: 'token', call: 'r1/c1' } }],
    });
    expect(stats.faultsAt).toEqual({ 'addDecision:rollback': 1 });
    expect(reached).toHaveLength(2);
    // Rolled back: the same approver decides again, and it counts.
    expect(stats.answers).toMatchObject({ 'decide:store_unavailable': 1, 'decide:ok': 1 });
  });

  it('approve-with-edits commits its audit records with the edit: a lost reply at any store call leaves the chain telling the ledger (was known defect editAuditAfterLedger)', async () => {
    expect(KNOWN_DEFECTS.editAuditAfterLedger).toBe(false);
    let faults = 0;
    for (let nth = 0; nth <= 6; nth++) {
      const stats = await replayHistory({
        harness: memoryHarness(),
        knownDefects: NO_KNOWN_DEFECTS,
        steps: [
          { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c1', tool: 'transfer', amount: 500 }] } },
          { action: { kind: 'edit', approver: 'fiona', call: 'r1/c1', amount: 50 }, fault: { nth, kind: 'lost_reply' } },
        ],
      });
      faults += stats.faults;
    }
    expect(faults).toBeGreaterThan(0);
  });

  it('an edited call that policy allows, whose approval was revoked, does not run (the model found it running; fixed in core: an edited call runs only with its own approval)', async () => {
    expect(KNOWN_DEFECTS.editedCallRunsWithoutItsApproval).toBe(false);
    // fiona edits a large transfer down to one policy allows, then revokes the edited call's approval.
    const steps: Step[] = [
      { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c1', tool: 'transfer', amount: 500 }] } },
      { action: { kind: 'edit', approver: 'fiona', call: 'r1/c1', amount: 50 } },
      { action: { kind: 'token', call: 'r1/c1~edit' } },
      { action: { kind: 'revoke', approver: 'fiona', call: 'r1/c1~edit' } },
      { action: { kind: 'authorize', agent: 'agent-a', call: 'r1/c1~edit', token: 'own' } },
    ];
    const now = await replayHistory({ harness: memoryHarness(), steps });
    expect(now.answers['authorize:authorized'] ?? 0).toBe(0);
    expect(now.knownDefects.editedCallRunsWithoutItsApproval ?? 0).toBe(0);
  });

  it('a store fault at any store call of a rug pull (registration, pin, review) leaves a state the model explains, and the changed tool never runs (checked at every grant)', async () => {
    const hit = new Set<string>();
    for (const kind of ['before', 'lost_reply'] as const) {
      for (let nth = 0; nth <= 12; nth++) {
        const stats = await replayHistory({
          harness: memoryHarness(),
          steps: [
            { action: { kind: 'redefine', definition: 'v2' }, fault: { nth, kind } },
            { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c3', tool: 'lookup', amount: 50 }] } },
            { action: { kind: 'authorize', agent: 'agent-a', call: 'r1/c3', token: 'none' } },
            { action: { kind: 'review', approver: 'alice', decision: 'approve' } },
          ],
        });
        for (const at of Object.keys(stats.faultsAt)) hit.add(at);
      }
    }
    // The faults landed on the definition store's writes, not only the ledger's.
    expect([...hit]).toEqual(expect.arrayContaining(['register:before', 'replacePin:before', 'replacePin:lost_reply', 'recordProposal:lost_reply']));
  });

  // The shrunk history of seed 1526074347 (a CI run): the review's own settle failed, so the
  // next look at the tool settles it, and that pin move's COMMIT reply was lost. The settle's
  // first call (getPin) is the review's store call 2 (was 6: a decision reads its request and
  // call in one read, and not the definitions it is not shown).
  it('a reviewed definition whose pin move loses its COMMIT reply is answered as admitted, not store_unavailable', async () => {
    const stats = await replayHistory({
      harness: memoryHarness(),
      knownDefects: NO_KNOWN_DEFECTS,
      steps: [
        { action: { kind: 'redefine', definition: 'v2' } },
        { action: { kind: 'review', approver: 'bob', decision: 'approve' }, fault: { nth: 2, kind: 'before' } },
        { action: { kind: 'redefine', definition: 'v2' }, fault: { nth: 9, kind: 'lost_reply' } },
      ],
    });
    expect(stats.faultsAt).toEqual({ 'getPin:before': 1, 'replacePin:lost_reply': 1 });
  });

  // The shrunk history of a 4,000-history soak: the settle on the next look at the tool
  // committed, then the read that followed it failed; the pin it wrote now answers. (The
  // review's settle: store call 2, was 6, as above.)
  it('a review settled by an authorize is answered from the pin it wrote, even when the store fails right after', async () => {
    const stats = await replayHistory({
      harness: memoryHarness(),
      knownDefects: NO_KNOWN_DEFECTS,
      steps: [
        { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c3', tool: 'lookup', amount: 50 }], authorize: false } },
        { action: { kind: 'redefine', definition: 'v2' } },
        { action: { kind: 'review', approver: 'alice', decision: 'approve' }, fault: { nth: 2, kind: 'before' } },
        { action: { kind: 'authorize', agent: 'agent-a', call: 'r1/c3', token: 'own' }, fault: { nth: 7, kind: 'before' } },
      ],
    });
    expect(stats.faultsAt).toMatchObject({ 'getPin:before': 1 });
  });

  // The shrunk history of a 20,000-history soak: a change made again in the millisecond of an
  // earlier change's review found that (approved, stale) review by its key, and a lost reply
  // then let the second look trust the tool in one step.
  it('a change made again in the same millisecond opens its own review, never the stale one of an earlier change', async () => {
    const stats = await replayHistory({
      harness: memoryHarness(),
      knownDefects: NO_KNOWN_DEFECTS,
      steps: [
        { action: { kind: 'redefine', definition: 'v2' } },
        { action: { kind: 'redefine', definition: 'v1' } },
        { action: { kind: 'restart' } },
        { action: { kind: 'review', approver: 'alice', decision: 'approve' } },
        { action: { kind: 'redefine', definition: 'v2' }, fault: { nth: 8, kind: 'lost_reply' } },
      ],
    });
    expect(stats.faultsAt).toMatchObject({ 'replacePin:lost_reply': 1 });
  });

  it('a definition store that trusts a definition still waiting for review (a rug pull let through) fails the model', async () => {
    const trustsPending = (store: MemoryDefinitionStore): DefinitionStore =>
      withMethod<DefinitionStore, 'getPin'>(store, 'getPin', async (toolName) => {
        const pin = await store.getPin(toolName);
        return pin?.status === 'changed' ? { ...pin, status: 'trusted' as const, trustedDigest: pin.pendingDigest } : pin;
      });
    const violation = await violationOf(
      runLifecycleModel({ harness: memoryHarness(undefined, trustsPending), numRuns: 300, maxSteps: 40, seed: 1, steps: { faults: false, restarts: false, concurrency: false } }),
    );
    expect(violation).toMatch(/redefine|definition_mismatch/);
    expect(violation).toContain('history as run:');
  });

  // A large lookup is approved under v1; then the agent re-registers the tool as v2 (a rug pull).
  const approvedUnderV1: Step[] = [
    { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c3', tool: 'lookup', amount: 500 }] } },
    { action: { kind: 'decide', approver: 'fiona', call: 'r1/c3', decision: 'approve' } },
    { action: { kind: 'token', call: 'r1/c3' } },
    { action: { kind: 'redefine', definition: 'v2' } },
  ];
  const authorizeIt: Step = { action: { kind: 'authorize', agent: 'agent-a', call: 'r1/c3', token: 'own' } };

  it('an approval given under one definition never runs the call under another, even once a reviewer trusts the other', async () => {
    const steps: Step[] = [...approvedUnderV1, { action: { kind: 'review', approver: 'alice', decision: 'approve' } }, authorizeIt];
    const stats = await replayHistory({ harness: memoryHarness(), steps });
    expect(stats.answers['redefine:definition_mismatch']).toBe(1);
    expect(stats.answers['review:ok']).toBe(1);
    expect(stats.answers['authorize:not_approved/definition_mismatch']).toBe(1);
    expect(stats.answers['authorize:authorized'] ?? 0).toBe(0);
  });

  it('going back to the pinned definition makes the tool usable without a review (reverted_to_trusted)', async () => {
    const steps: Step[] = [...approvedUnderV1, authorizeIt, { action: { kind: 'redefine', definition: 'v1' } }, authorizeIt];
    const stats = await replayHistory({ harness: memoryHarness(), steps });
    expect(stats.answers['authorize:not_approved/definition_mismatch']).toBe(1);
    expect(stats.answers['redefine:ok']).toBe(1);
    expect(stats.answers['review:ok'] ?? 0).toBe(0);
    expect(stats.answers['authorize:authorized']).toBe(1);
  });

  it('approving the review makes the changed tool usable again; a call approved under the old definition still never runs', async () => {
    const steps: Step[] = [
      { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c1', tool: 'lookup', amount: 50 }] } },
      { action: { kind: 'redefine', definition: 'v2' } },
      { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c2', tool: 'lookup', amount: 50 }] } },
      { action: { kind: 'review', approver: 'mallory', decision: 'approve' } },
      { action: { kind: 'review', approver: 'alice', decision: 'approve' } },
      { action: { kind: 'propose', agent: 'agent-a', run: 'r1', calls: [{ callId: 'c2', tool: 'lookup', amount: 50 }] } },
      { action: { kind: 'authorize', agent: 'agent-a', call: 'r1/c2', token: 'none' } },
      { action: { kind: 'authorize', agent: 'agent-a', call: 'r1/c1', token: 'none' } },
    ];
    const stats = await replayHistory({ harness: memoryHarness(), steps });
    expect(stats.answers['propose:rejected/definition_mismatch']).toBe(1);
    expect(stats.answers['review:not_eligible']).toBe(1);
    expect(stats.answers['review:ok']).toBe(1);
    expect(stats.answers['authorize:authorized']).toBe(1);
    expect(stats.answers['authorize:not_approved/definition_mismatch']).toBe(1);
  });

  it('a call whose definition is current but no longer trusted never runs, approval notwithstanding (a denied review disables the tool, a revert does not lift it)', async () => {
    const steps: Step[] = [
      ...approvedUnderV1,
      { action: { kind: 'review', approver: 'bob', decision: 'deny' } },
      { action: { kind: 'redefine', definition: 'v1' } },
      authorizeIt,
    ];
    const stats = await replayHistory({ harness: memoryHarness(), steps });
    expect(stats.answers['review:ok']).toBe(1);
    expect(stats.answers['redefine:definition_mismatch']).toBe(2);
    expect(stats.answers['authorize:not_approved/definition_mismatch']).toBe(1);
    expect(stats.answers['authorize:authorized'] ?? 0).toBe(0);
  });
});
