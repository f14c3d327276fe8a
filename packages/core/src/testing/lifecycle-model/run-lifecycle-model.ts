import fc from 'fast-check';
import { type Action, type Fault, type Step, type StepOptions, stepArbitrary } from './actions.ts';
import { LEDGER_WRITES } from './fault-ledger.ts';
import {
  checkAuditStory,
  checkGrant,
  checkGrantsStillHold,
  claimOf,
  LifecycleViolation,
  readSnapshot,
  sameOutcome,
  snapshotOf,
} from './invariants.ts';
import { applicable, GRANTED, initialState, type ModelState, resolveAction, step } from './model.ts';
import { KNOWN_DEFECTS, type KnownDefect } from './rules.ts';
import { type LifecycleHarness, type Observed, RealSystem } from './system.ts';

/** Counts over every history a run checked (the soak prints them). */
export interface LifecycleStats {
  histories: number;
  commands: number;
  faults: number;
  /** Faults injected per store method and kind (`replacePin:lost_reply`...): which writes they hit. */
  faultsAt: Record<string, number>;
  restarts: number;
  /** Histories whose gate process was SIGKILLed and whose store was reopened (run-killed-lifecycle.ts). */
  kills: number;
  concurrentBatches: number;
  violations: number;
  knownDefects: Partial<Record<KnownDefect, number>>;
  /** How often each action got each answer (`authorize:authorized`...): how far the histories reach. */
  answers: Record<string, number>;
}

export function emptyStats(): LifecycleStats {
  return { histories: 0, commands: 0, faults: 0, faultsAt: {}, restarts: 0, kills: 0, concurrentBatches: 0, violations: 0, knownDefects: {}, answers: {} };
}

export interface LifecycleRunOptions {
  /** A fresh store per history. */
  harness: () => Promise<LifecycleHarness>;
  numRuns: number;
  maxSteps: number;
  steps: StepOptions;
  seed?: number | undefined;
  /** Replays one recorded failure (fast-check's `path`). */
  path?: string | undefined;
  stats?: LifecycleStats | undefined;
  /** A history that takes longer is a hang, reported as a violation (default 20 s). */
  historyTimeoutMs?: number | undefined;
  /** Which known defects to tolerate (default: `KNOWN_DEFECTS`). */
  knownDefects?: Readonly<Record<KnownDefect, boolean>> | undefined;
}

/**
 * Runs random histories against the real gate on `harness`'s store and checks each
 * step against the model and the invariants. Throws fast-check's report on the first
 * violation: its seed, path and shrunk step list replay it exactly.
 */
export async function runLifecycleModel(options: LifecycleRunOptions): Promise<LifecycleStats> {
  const stats = options.stats ?? emptyStats();
  const tolerated = options.knownDefects ?? KNOWN_DEFECTS;
  const property = fc.asyncProperty(fc.array(stepArbitrary(options.steps), { maxLength: options.maxSteps, size: 'max' }), fc.scheduler(), async (steps, scheduler) => {
    stats.histories++;
    const harness = await options.harness();
    const system = new RealSystem(harness);
    await system.start();
    try {
      await withDeadline(runHistory(system, steps, scheduler, stats, tolerated), options.historyTimeoutMs ?? 20_000);
    } catch (error) {
      if (error instanceof LifecycleViolation) stats.violations++;
      throw error;
    } finally {
      await system.stop().catch(() => undefined);
      await harness.destroy();
    }
  });
  await fc.assert(property, {
    numRuns: options.numRuns,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.path === undefined ? {} : { path: options.path }),
  });
  return stats;
}

async function runHistory(system: RealSystem, steps: Step[], scheduler: fc.Scheduler, stats: LifecycleStats, tolerated: Readonly<Record<KnownDefect, boolean>>): Promise<void> {
  // The history as it ran, with real call keys: printed with any violation.
  const ran: unknown[] = [];
  await withHistory(ran, async () => {
    const model = await runSteps({ system, scheduler, stats, tolerated, ran }, initialState({ editedAllowedCallSkipsApproval: tolerated.editedCallRunsWithoutItsApproval }), steps);
    await checkAuditStory(system, model, tolerated, seenBy(stats));
  });
}

/** Where a history runs and what it has seen so far. */
export interface HistoryRun {
  system: RealSystem;
  scheduler: fc.Scheduler;
  stats: LifecycleStats;
  tolerated: Readonly<Record<KnownDefect, boolean>>;
  /** The steps run so far, with real call keys (printed with a violation). */
  ran: unknown[];
}

/** Counts a known defect seen (rules.ts), instead of failing. */
export function seenBy(stats: LifecycleStats): (defect: KnownDefect) => void {
  return (defect) => {
    stats.knownDefects[defect] = (stats.knownDefects[defect] ?? 0) + 1;
  };
}

/** Runs `work`; a violation it throws carries the history as run. */
export async function withHistory(ran: unknown[], work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof LifecycleViolation) throw new LifecycleViolation(`${error.message}\nhistory as run:\n${ran.map((a) => `  ${JSON.stringify(a)}`).join('\n')}`);
    throw error;
  }
}

/**
 * Runs `steps` on the real system from `model`, checking each against the model and the
 * invariants (all but the audit story, checked once at the end of a history); returns the
 * model after them. `afterStep` sees the model after each step that ran.
 */
export async function runSteps(run: HistoryRun, from: ModelState, steps: Step[], afterStep?: (model: ModelState) => Promise<void> | void): Promise<ModelState> {
  const { system, scheduler, stats, tolerated, ran } = run;
  let model = from;
  for (const next of steps) {
    const where = `step ${ran.length}`;
    if ('concurrent' in next) {
      const actions = next.concurrent.map((a) => resolveAction(model, a)).filter((a) => a !== undefined);
      if (actions.length === 0) continue;
      ran.push({ concurrent: actions });
      stats.concurrentBatches++;
      stats.commands += actions.length;
      model = await runConcurrent(system, model, actions, scheduler, stats, where);
    } else {
      const action = resolveAction(model, next.action);
      if (action === undefined) continue;
      ran.push(next.fault === undefined ? action : { ...action, fault: next.fault });
      stats.commands++;
      if (action.kind === 'restart') stats.restarts++;
      model = await runSingle(system, model, action, next.fault, stats, tolerated, where);
    }
    await checkGrantsStillHold(system, model, tolerated, seenBy(stats));
    await afterStep?.(model);
  }
  return model;
}

async function runSingle(
  system: RealSystem,
  model: ModelState,
  action: Action,
  fault: Fault | undefined,
  stats: LifecycleStats,
  tolerated: Readonly<Record<KnownDefect, boolean>>,
  where: string,
): Promise<ModelState> {
  const predicted = step(model, action);
  const injectedBefore = system.injected;
  system.arm(fault);
  let observed: Observed[];
  try {
    observed = await system.perform(action, model);
  } catch (error) {
    throw new LifecycleViolation(`${where}: ${action.kind} threw instead of answering: ${String(error)}`);
  } finally {
    system.arm(undefined);
  }
  const faulted = system.injected > injectedBefore;
  countAnswers(stats, action, observed);
  if (faulted) {
    stats.faults++;
    const at = `${system.lastInjected!.method}:${system.lastInjected!.kind}`;
    stats.faultsAt[at] = (stats.faultsAt[at] ?? 0) + 1;
  }
  const show = () => `${where}: ${JSON.stringify(action)}${faulted ? ` under ${JSON.stringify(system.lastInjected)}` : ''}: answered ${JSON.stringify(observed)}`;

  // Which state the store holds: the predicted one or, after a fault, one the fault explains.
  await system.learnIds(predicted.next);
  const truth = await readSnapshot(system, predicted.next);
  let after: ModelState | undefined = truth === snapshotOf(predicted.next) ? predicted.next : undefined;
  if (after === undefined && faulted) {
    for (const candidate of statesAfterFault(model, action)) {
      if ((await readSnapshot(system, candidate)) !== snapshotOf(candidate)) continue;
      after = candidate;
      break;
    }
  }
  if (after === undefined) throw new LifecycleViolation(`${show()}; store holds ${truth}, model says ${snapshotOf(predicted.next)}`);

  if (!faulted) {
    predicted.expected.forEach((expected, i) => {
      const got = observed[i];
      if (got === undefined || !sameOutcome(got, expected)) throw new LifecycleViolation(`${show()}; model expects ${JSON.stringify(predicted.expected)}`);
    });
  } else {
    observed.forEach((got, i) => {
      const expected = predicted.expected[i]!;
      const claim = claimOf(got);
      const tookEffect = changedBy(model, after, action, i);
      if (claim === 'unknown' || (!tookEffect && !changedBy(model, predicted.next, action, i) && sameOutcome(got, expected))) return;
      if (admissionHolds(model, after, action, i, got)) return;
      if (tookEffect && sameOutcome(got, expected)) return;
      if (!tookEffect && claim === 'failure') return;
      // Invariant 5: a write that committed must not be reported as not done.
      // Tolerated only for the defect's own case: the reply of the write itself was lost.
      const lostWriteReply = system.lastInjected?.kind === 'lost_reply' && LEDGER_WRITES.has(system.lastInjected.method);
      const defect: KnownDefect = action.kind === 'propose' || action.kind === 'complete' ? 'lostProposeOrCompleteReplyReportedAsFailure' : 'lostReplyReportedAsFailure';
      if (tookEffect && claim === 'failure' && lostWriteReply && tolerated[defect]) {
        stats.knownDefects[defect] = (stats.knownDefects[defect] ?? 0) + 1;
        return;
      }
      const said = tookEffect ? 'the write committed but the answer says otherwise' : 'the answer says done, but the store holds nothing of it';
      throw new LifecycleViolation(`${show()}; ${said} (model: ${JSON.stringify(expected)} if it took effect)`);
    });
  }
  const learned = withAgentKnowledge(after, model, action, observed);
  for (const key of grantedKeys(action, observed)) await checkGrant(system, learned, key);
  return learned;
}

/**
 * The states a faulted action may leave: all of it or none of it, and for a response, any
 * of its calls on their own. A step's definition part (the registration, the pin, the
 * review it opens) is written in several store calls, so it may also stop part-way: the
 * registration without the pin's move, the pin moved without its review opened, a review
 * decided without the pin settled (the next look at the tool finishes each, as the gate does).
 */
export function statesAfterFault(model: ModelState, action: Action): ModelState[] {
  const whole = action.kind !== 'propose' ? [step(model, action).next, model] : responseStates(model, action);
  // Any of the step's definition parts (none, all, a prefix) with any of its other parts: the
  // gate moves a pin before it records the call that looked at it.
  const full = step(model, action).next;
  const definitions = [full, model, ...definitionPrefixes(model, full, action)].map((s) => s.definition);
  const states = whole.flatMap((state) => [state, ...definitions.map((definition) => ({ ...state, definition }))]);
  const seen = new Set<string>();
  return states.filter((state) => {
    const key = JSON.stringify(state);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function responseStates(model: ModelState, action: Extract<Action, { kind: 'propose' }>): ModelState[] {
  const states: ModelState[] = [];
  for (let mask = 0; mask < 1 << action.calls.length; mask++) {
    let state = model;
    action.calls.forEach((call, i) => {
      if (mask & (1 << i)) state = step(state, { ...action, calls: [call] }).next;
    });
    states.push(state);
  }
  return states;
}

/** `after` with its definition part cut short after `before`: each prefix of the definition writes that differs from both ends. */
function definitionPrefixes(before: ModelState, after: ModelState, action: Action): ModelState[] {
  const prefixes: ModelState[] = [];
  const withDefinition = (definition: ModelState['definition']): ModelState => ({ ...after, definition });
  const from = before.definition;
  const to = after.definition;
  // The registration written, nothing else of the step's definition part.
  if (action.kind === 'redefine') prefixes.push(withDefinition({ ...from, current: to.current }));
  // The pin moved, the review it opens not (yet) recorded.
  const opened = Object.keys(to.reviews).filter((key) => from.reviews[key] === undefined);
  if (opened.length > 0) {
    const reviews = structuredClone(to.reviews);
    for (const key of opened) delete reviews[key];
    prefixes.push(withDefinition({ ...structuredClone(to), reviews, latestReview: from.latestReview }));
  }
  // A review decided, the pin not settled by it.
  if (action.kind === 'review' && JSON.stringify(from.pin) !== JSON.stringify(to.pin)) prefixes.push(withDefinition({ ...structuredClone(to), pin: from.pin }));
  return prefixes;
}

/**
 * Answers about the registered tool's definition are true by the pin the store holds,
 * however far a faulted step's definition writes got (a review may open only on the next
 * look): a `definition_mismatch` refusal holds when the pin does not trust the tool's
 * current definition (or, to authorize, the call's is not the current one) and the call
 * was left as it was; a redefine's `ok` holds when the pin trusts the new definition.
 */
function admissionHolds(before: ModelState, after: ModelState, action: Action, index: number, got: Observed): boolean {
  const { pin, current } = after.definition;
  const trustsCurrent = pin.status === 'trusted' && pin.trusted === current;
  if (action.kind === 'redefine') return current === action.definition && got.status === (trustsCurrent ? 'ok' : 'definition_mismatch');
  if (got.status !== 'definition_mismatch' && got.reason !== 'definition_mismatch') return false;
  const key = action.kind === 'propose' ? `${action.run}/${action.calls[index]!.callId}` : 'call' in action ? action.call : undefined;
  const untouched = key === undefined || JSON.stringify(before.calls[key]) === JSON.stringify(after.calls[key]);
  const callDefinition = key === undefined ? undefined : after.calls[key]?.definition;
  return untouched && (!trustsCurrent || (action.kind === 'authorize' && callDefinition !== current));
}

/** Whether answer `index` of `action` is about something that differs between `before` and `after`. */
function changedBy(before: ModelState, after: ModelState, action: Action, index: number): boolean {
  if (action.kind === 'propose') {
    const key = `${action.run}/${action.calls[index]!.callId}`;
    return before.calls[key] === undefined && after.calls[key] !== undefined;
  }
  // A redefine answers for its admission (the pin, the review); the registration before it answered on its own.
  if (action.kind === 'redefine') return snapshotOf({ ...after, definition: { ...after.definition, current: before.definition.current } }) !== snapshotOf(before);
  return snapshotOf(before) !== snapshotOf(after);
}

/** Tokens and grants the agent holds only when the answer handed them over (a lost reply hands over nothing). */
export function withAgentKnowledge(after: ModelState, before: ModelState, action: Action, observed: Observed[]): ModelState {
  if (action.kind === 'propose') return withProposedGrants(after, action, observed);
  if (action.kind !== 'token' && action.kind !== 'authorize') return after;
  const handed = observed[0]?.status === (action.kind === 'token' ? 'ok' : 'authorized');
  const next = structuredClone(after);
  const call = next.calls[action.call]!;
  // A failed fetch leaves a token fetched before where it was.
  if (action.kind === 'token') call.hasToken = handed || before.calls[action.call]!.hasToken;
  else call.hasGrant = handed || before.calls[action.call]!.hasGrant;
  return next;
}

/** Propose-and-authorize: the agent holds the grant of each call whose answer carried one. */
function withProposedGrants(after: ModelState, action: Extract<Action, { kind: 'propose' }>, observed: Observed[]): ModelState {
  if (!observed.some((o) => o.reason === GRANTED)) return after;
  const next = structuredClone(after);
  observed.forEach((o, i) => {
    const call = next.calls[`${action.run}/${action.calls[i]!.callId}`];
    if (o.reason === GRANTED && call !== undefined) call.hasGrant = true;
  });
  return next;
}

/** The calls of `action` whose answer handed over a grant (propose-and-authorize, or authorize). */
function grantedKeys(action: Action, observed: Observed[]): string[] {
  if (action.kind === 'authorize') return observed[0]?.status === 'authorized' ? [action.call] : [];
  if (action.kind !== 'propose') return [];
  return action.calls.flatMap((c, i) => (observed[i]?.reason === GRANTED ? [`${action.run}/${c.callId}`] : []));
}

/**
 * Runs `actions` at once, the scheduler choosing which reaches the store next at every
 * store call, then accepts the answers only if some order of the actions, run one at a
 * time through the model, gives the same answers and the state the store holds.
 */
async function runConcurrent(system: RealSystem, model: ModelState, actions: Action[], scheduler: fc.Scheduler, stats: LifecycleStats, where: string): Promise<ModelState> {
  system.schedule((method) => scheduler.schedule(Promise.resolve(method), method).then(() => undefined));
  let observed: Observed[][];
  try {
    observed = await scheduler.waitFor(Promise.all(actions.map((a) => system.perform(a, model))));
  } catch (error) {
    throw new LifecycleViolation(`${where}: a concurrent action threw instead of answering: ${String(error)}`);
  } finally {
    system.schedule(undefined);
  }
  for (const [i, action] of actions.entries()) countAnswers(stats, action, observed[i]!);
  const orders = permutations(actions.map((_, i) => i));
  const candidates: ModelState[] = [];
  for (const order of orders) {
    let state = model;
    let matches = true;
    for (const i of order) {
      const action = actions[i]!;
      if (!applicable(state, action)) {
        matches = false;
        break;
      }
      const predicted = step(state, action);
      if (!predicted.expected.every((e, j) => observed[i]![j] !== undefined && sameOutcome(observed[i]![j]!, e))) {
        matches = false;
        break;
      }
      state = withAgentKnowledge(predicted.next, state, action, observed[i]!);
    }
    if (matches) candidates.push(state);
  }
  await system.learnIds(candidates[0] ?? model);
  for (const candidate of candidates) {
    await system.learnIds(candidate);
    if ((await readSnapshot(system, candidate)) === snapshotOf(candidate)) {
      for (const [i, action] of actions.entries()) {
        for (const key of grantedKeys(action, observed[i]!)) await checkGrant(system, candidate, key);
      }
      return candidate;
    }
  }
  throw new LifecycleViolation(
    `${where}: concurrent ${JSON.stringify(actions)} answered ${JSON.stringify(observed)}: no order of them explains the answers and the store (${await readSnapshot(system, model)})`,
  );
}

/**
 * Runs one given history (no generation): replays a history printed by a failing run
 * (without its concurrent steps' interleaving, which only a seed and path replay), or
 * states a specific one in a test. Throws `LifecycleViolation` like a generated run.
 */
export async function replayHistory(options: {
  harness: () => Promise<LifecycleHarness>;
  steps: Step[];
  knownDefects?: Readonly<Record<KnownDefect, boolean>> | undefined;
  stats?: LifecycleStats | undefined;
}): Promise<LifecycleStats> {
  const stats = options.stats ?? emptyStats();
  const [scheduler] = fc.sample(fc.scheduler(), { numRuns: 1, seed: 0 });
  const harness = await options.harness();
  const system = new RealSystem(harness);
  await system.start();
  try {
    await runHistory(system, options.steps, scheduler!, stats, options.knownDefects ?? KNOWN_DEFECTS);
  } finally {
    await system.stop().catch(() => undefined);
    await harness.destroy();
  }
  return stats;
}

/** No hang: a history that does not finish in time fails like any other violation (with its seed). */
async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LifecycleViolation(`the history did not finish within ${ms} ms (a hang)`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function countAnswers(stats: LifecycleStats, action: Action, observed: Observed[]): void {
  for (const answer of observed) {
    const name = `${action.kind}:${answer.status}${answer.reason === undefined ? '' : `/${answer.reason}`}`;
    stats.answers[name] = (stats.answers[name] ?? 0) + 1;
  }
}

function permutations(items: number[]): number[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}
