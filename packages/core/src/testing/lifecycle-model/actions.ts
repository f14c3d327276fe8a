import fc from 'fast-check';
import { MODEL_AGENTS, MODEL_APPROVER_NAMES, MODEL_CALL_IDS, MODEL_RUNS, MODEL_TOOLS, type ModelAgent, type ModelDefinition, type ModelTool } from './rules.ts';

/**
 * What the random histories are made of: plain data, printed as JSON in a failing
 * run's shrunk command list, so a reader can replay it by hand. Calls are named by
 * `run/callId` (an edited call adds `~edit`): the real ids the gate assigns are looked
 * up by that key on the real side.
 */
export interface CallSpec {
  callId: string;
  tool: ModelTool;
  amount: number;
}

/**
 * A store fault for one action: the `nth` store call the action makes (0-based) fails.
 * `before`: it throws without reaching the store. `rollback`: the write runs and is
 * rolled back (its audit part throws inside the transaction). `lost_reply`: the write
 * commits and then the caller gets an error, as when a COMMIT's reply is lost.
 */
export interface Fault {
  nth: number;
  kind: 'before' | 'rollback' | 'lost_reply';
}

export type Action =
  /** `authorize`: propose-and-authorize (`authorizeAllowed`): an allowed new call comes back granted. */
  | { kind: 'propose'; agent: ModelAgent; run: string; calls: CallSpec[]; authorize?: boolean | undefined }
  | { kind: 'decide'; approver: string; call: string; decision: 'approve' | 'deny' }
  | { kind: 'edit'; approver: string; call: string; amount: number }
  | { kind: 'revoke'; approver: string; call: string }
  /** An approver takes back their own approval of a request still waiting for more (n of m). */
  | { kind: 'withdraw'; approver: string; call: string }
  | { kind: 'token'; call: string }
  | { kind: 'authorize'; agent: ModelAgent; call: string; token: 'own' | 'none' | 'other' }
  | { kind: 'complete'; call: string; outcome: 'succeeded' | 'failed' }
  | { kind: 'relay'; call: string; honest: boolean }
  | { kind: 'tick'; seconds: number }
  | { kind: 'restart' }
  /** agent-a re-registers `lookup` under this definition (v2: a rug pull, v1: back to the pinned one); a gateway then asks whether it is trusted. */
  | { kind: 'redefine'; definition: ModelDefinition }
  /** An approver decides the latest review of a changed definition. */
  | { kind: 'review'; approver: string; decision: 'approve' | 'deny' };

/** The definition actions: generated alone, never in a concurrent batch. */
export function isDefinitionAction(action: Action): boolean {
  return action.kind === 'redefine' || action.kind === 'review';
}

/** One step of a history: an action alone (maybe with a fault), or several run concurrently. */
export type Step = { action: Action; fault?: Fault | undefined } | { concurrent: Action[] };

/**
 * A generated action names its call as `#n`: the n-th (modulo) of the calls the action
 * applies to when it runs (`resolveAction`), so every step does something. The
 * resolved history, with real keys, is printed with any violation.
 */
const callKey = fc.nat({ max: 11 }).map((n) => `#${n}`);

const amount = fc.constantFrom(50, 500, 5000);
const agent = fc.constantFrom(...MODEL_AGENTS);
/** Mostly people who may decide something, so histories get past the first decision. */
const approver = fc.oneof({ weight: 5, arbitrary: fc.constantFrom('fiona', 'gina', 'alice', 'bob') }, { weight: 1, arbitrary: fc.constantFrom(...MODEL_APPROVER_NAMES) });

/** A call id mostly keeps its tool (c1 transfers, c2 deploys), so a repeated id is mostly a repeat, sometimes a conflict. */
const USUAL_TOOL: Readonly<Record<string, ModelTool>> = { c1: 'transfer', c2: 'deploy', c3: 'lookup' };
const callSpec = fc
  .tuple(fc.constantFrom(...MODEL_CALL_IDS), fc.constantFrom(...MODEL_TOOLS), fc.nat({ max: 4 }), amount)
  .map(([callId, tool, roll, amount]) => ({ callId, tool: roll > 0 ? (USUAL_TOOL[callId] ?? tool) : tool, amount }));

/** Mostly the owner's first agent (so histories get far), sometimes the other one. */
const actingAgent = fc.oneof({ weight: 4, arbitrary: fc.constant<ModelAgent>('agent-a') }, { weight: 1, arbitrary: agent });

export const actionArbitrary: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('propose' as const),
      agent: actingAgent,
      run: fc.constantFrom(...MODEL_RUNS),
      calls: fc.uniqueArray(callSpec, { minLength: 1, maxLength: 3, selector: (c) => c.callId }),
      authorize: fc.boolean(),
    }),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('decide' as const), approver, call: callKey, decision: fc.constantFrom('approve' as const, 'approve' as const, 'approve' as const, 'deny' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('edit' as const), approver, call: callKey, amount }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('revoke' as const), approver, call: callKey }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), approver, call: callKey }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('token' as const), call: callKey }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('authorize' as const), agent: actingAgent, call: callKey, token: fc.constantFrom('own' as const, 'own' as const, 'none' as const, 'other' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('complete' as const), call: callKey, outcome: fc.constantFrom('succeeded' as const, 'failed' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('relay' as const), call: callKey, honest: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), seconds: fc.constantFrom(30, 400, 700) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('redefine' as const), definition: fc.constantFrom<ModelDefinition>('v1', 'v2') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('review' as const), approver, decision: fc.constantFrom('approve' as const, 'approve' as const, 'deny' as const) }) },
);

export const faultArbitrary: fc.Arbitrary<Fault> = fc.record({
  // Up to the 10th store call: a definition step (registration, pin, review) makes about that many.
  nth: fc.nat({ max: 9 }),
  kind: fc.constantFrom('before' as const, 'rollback' as const, 'lost_reply' as const),
});

/** Which kinds of steps a suite generates: faults and restarts only where the harness supports them. */
export interface StepOptions {
  faults: boolean;
  restarts: boolean;
  concurrency: boolean;
}

export function stepArbitrary(options: StepOptions): fc.Arbitrary<Step> {
  const single = options.faults ? fc.record({ action: actionArbitrary, fault: fc.option(faultArbitrary, { freq: 2, nil: undefined }) }) : fc.record({ action: actionArbitrary });
  const choices: fc.WeightedArbitrary<Step>[] = [{ weight: 20, arbitrary: single }];
  if (options.restarts) choices.push({ weight: 1, arbitrary: fc.constant({ action: { kind: 'restart' as const } }) });
  if (options.concurrency) {
    // A concurrent propose carries one call: the calls of one response are each checked as a unit
    // (the memory store records them one by one; the SQL stores group them into one commit).
    const oneCall = actionArbitrary.filter((a) => !isDefinitionAction(a)).map((a) => (a.kind === 'propose' ? { ...a, calls: a.calls.slice(0, 1) } : a));
    choices.push({ weight: 2, arbitrary: fc.record({ concurrent: fc.array(oneCall, { minLength: 2, maxLength: 3 }) }) });
  }
  return fc.oneof(...choices);
}
