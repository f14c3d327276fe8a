import type { Action } from './actions.ts';
import { argumentsOf, MODEL_REVIEW, type ModelAgent, type ModelDefinition, type ModelTool, REGISTERED_TOOL, verdictOf } from './rules.ts';

/**
 * The approval lifecycle as an executable model: the state every store must hold after
 * each step, and the outcome the gate must report for each action. Pure functions on
 * plain data (`step`), so a concurrent batch can be checked against every order of its
 * actions. The invariants over a whole history are in invariants.ts.
 */

export type RequestStatus = 'pending' | 'approved' | 'denied' | 'revoked' | 'consumed' | 'edited';

export interface ModelRequest {
  expiresAt: number;
  required: number;
  eligible: readonly string[];
  /** Who decided, in order (one decision each). */
  deciders: string[];
  approvals: number;
  status: RequestStatus;
}

export interface ModelCall {
  key: string;
  run: string;
  agent: ModelAgent;
  tool: ModelTool;
  amount: number;
  verdict: 'allow' | 'approve' | 'deny';
  request?: ModelRequest | undefined;
  state: 'proposed' | 'dispatched' | 'succeeded' | 'failed';
  /** Agent-side: the owner fetched the approval token / holds the grant authorize returned. */
  hasToken: boolean;
  hasGrant: boolean;
  /** For the registered tool: the definition the call was proposed (and approved) under. */
  definition?: ModelDefinition | undefined;
}

/** The registered tool's pin: which definition calls may run under (the store's `ToolPin`, by name instead of digest). */
export interface ModelPin {
  status: 'trusted' | 'changed' | 'disabled';
  trusted?: ModelDefinition | undefined;
  pending?: ModelDefinition | undefined;
  updatedAt: number;
}

/** A review of a changed definition: an approval request, one per move of the pin (keyed `<definition>@<pin's updatedAt>`). */
export interface ModelReview {
  definition: ModelDefinition;
  expiresAt: number;
  status: 'pending' | 'approved' | 'denied';
  deciders: string[];
}

export interface ModelDefinitions {
  /** The definition agent-a registered last: what the model sees now. */
  current: ModelDefinition;
  pin: ModelPin;
  reviews: Record<string, ModelReview>;
  /** The review opened (or found again) last: the one a `review` action decides. */
  latestReview?: string | undefined;
}

export interface ModelState {
  /** Rules still moving in core (rules.ts `KNOWN_DEFECTS`): which behaviour the model predicts. */
  rules: { editedAllowedCallSkipsApproval: boolean };
  now: number;
  runOwner: Record<string, ModelAgent>;
  calls: Record<string, ModelCall>;
  definition: ModelDefinitions;
}

/** What the gate must answer: its status, and the reason when the model is sure of it. */
export interface Expected {
  status: string;
  reason?: string | undefined;
}

/** `expected` per call for a propose (in the response's order); one entry for every other action. */
export interface StepResult {
  next: ModelState;
  expected: Expected[];
  /** Whether the action writes to the store when it succeeds (a lost reply then leaves `next`, not the old state). */
  writes: boolean;
}

export const MODEL_START = Date.UTC(2026, 5, 1, 12);

/** The gate's default clock tolerance for token expiry (`clockToleranceSeconds`). */
const TOKEN_CLOCK_TOLERANCE_MS = 5_000;

export function initialState(rules: ModelState['rules'] = { editedAllowedCallSkipsApproval: false }): ModelState {
  // v1 is trusted on first use when the history starts (system.ts `start`).
  const definition: ModelDefinitions = { current: 'v1', pin: { status: 'trusted', trusted: 'v1', updatedAt: MODEL_START }, reviews: {} };
  return { rules, now: MODEL_START, runOwner: {}, calls: {}, definition };
}

/** The effective status of a request at `now`: pending or approved past the deadline reads expired. */
export function effective(request: ModelRequest, now: number): RequestStatus | 'expired' {
  if ((request.status === 'pending' || request.status === 'approved') && now >= request.expiresAt) return 'expired';
  return request.status;
}

const clone = (state: ModelState): ModelState => structuredClone(state);
const same = (state: ModelState, ...expected: Expected[]): StepResult => ({ next: state, expected, writes: false });

/** The action's precondition: actions about a call the model does not know are not generated into a run. */
export function applicable(state: ModelState, action: Action): boolean {
  switch (action.kind) {
    case 'propose':
    case 'tick':
    case 'restart':
    case 'redefine':
      return true;
    case 'review':
      return state.definition.latestReview !== undefined;
    case 'decide':
    case 'revoke':
    case 'withdraw':
      return state.calls[action.call]?.request !== undefined;
    case 'edit':
      // Only a base call is edited here: an edit of an edit would need keys histories do not name.
      return state.calls[action.call]?.request !== undefined && state.calls[action.call]?.tool === 'transfer' && !action.call.includes('~edit');
    case 'token':
      return state.calls[action.call]?.request !== undefined;
    case 'authorize':
    case 'relay':
      return state.calls[action.call] !== undefined;
    case 'complete':
      return state.calls[action.call]?.hasGrant === true;
  }
}

/** The action with its `#n` call reference replaced by a call it applies to now, or undefined when there is none. */
export function resolveAction(state: ModelState, action: Action): Action | undefined {
  if (!('call' in action) || !action.call.startsWith('#')) return applicable(state, action) ? action : undefined;
  const n = Number(action.call.slice(1));
  const keys = Object.keys(state.calls)
    .sort()
    .filter((key) => applicable(state, { ...action, call: key }));
  return keys.length === 0 ? undefined : { ...action, call: keys[n % keys.length]! };
}

export function step(state: ModelState, action: Action): StepResult {
  switch (action.kind) {
    case 'tick': {
      const next = clone(state);
      next.now += action.seconds * 1000;
      return same(next, { status: 'ok' });
    }
    case 'restart':
      return same(state, { status: 'ok' });
    case 'propose':
      return propose(state, action);
    case 'decide':
      return decide(state, action);
    case 'edit':
      return edit(state, action);
    case 'revoke':
      return revoke(state, action);
    case 'withdraw':
      return withdraw(state, action);
    case 'token': {
      const call = state.calls[action.call]!;
      if (effective(call.request!, state.now) !== 'approved') return same(state, { status: 'not_approved' });
      const next = clone(state);
      next.calls[action.call]!.hasToken = true;
      return same(next, { status: 'ok' });
    }
    case 'authorize':
      return authorize(state, action);
    case 'complete':
      return complete(state, action);
    case 'relay': {
      const call = state.calls[action.call]!;
      return same(state, { status: call.state === 'succeeded' && action.honest ? 'ok' : 'relay_refused' });
    }
    case 'redefine': {
      const next = clone(state);
      next.definition.current = action.definition;
      return { next, expected: [admit(next, action.definition) ? { status: 'ok' } : { status: 'definition_mismatch' }], writes: true };
    }
    case 'review':
      return review(state, action);
  }
}

/** A review's key: one review per move of the pin (core's `reviewKey`, by definition name). */
export function reviewKeyOf(pin: ModelPin): string {
  return `${pin.pending}@${pin.updatedAt}`;
}

/**
 * Whether calls may run under `definition` now, moving `state`'s pin as the gate does
 * (in place): the trusted one runs; the one under review runs once its review is
 * approved (denied: the tool is disabled); going back to the trusted one while a change
 * waits is trusted again without a review (`reverted_to_trusted`); any other opens (or
 * finds again) the review of the move, and does not run.
 */
function admit(state: ModelState, definition: ModelDefinition): boolean {
  const d = state.definition;
  const pin = d.pin;
  if (pin.status === 'trusted' && pin.trusted === definition) return true;
  if (pin.status === 'disabled') return false;
  if (pin.status === 'changed' && pin.pending === definition) {
    const review = d.reviews[reviewKeyOf(pin)];
    // The pin moved but its review was never opened (a store fault or a crash in between): opened now, under the same key.
    if (review === undefined) {
      openReview(state);
      return false;
    }
    if (state.now >= review.expiresAt && review.status === 'pending') {
      // An expired review: a fresh move of the pin, a fresh review.
      d.pin = { ...pin, updatedAt: Math.max(state.now, pin.updatedAt + 1) };
      openReview(state);
      return false;
    }
    if (review.status === 'approved') {
      d.pin = { status: 'trusted', trusted: definition, updatedAt: state.now };
      return true;
    }
    if (review.status === 'denied') d.pin = { ...pin, status: 'disabled', updatedAt: state.now };
    return false;
  }
  if (pin.status === 'changed' && pin.trusted === definition) {
    d.pin = { status: 'trusted', trusted: definition, updatedAt: Math.max(state.now, pin.updatedAt + 1) };
    return true;
  }
  d.pin = { status: 'changed', trusted: pin.trusted, pending: definition, updatedAt: Math.max(state.now, pin.updatedAt + 1) };
  openReview(state);
  return false;
}

/** Opens the review of the pin's move, or finds the one opened for the same move (same key). */
function openReview(state: ModelState): void {
  const d = state.definition;
  const key = reviewKeyOf(d.pin);
  d.reviews[key] ??= { definition: d.pin.pending!, expiresAt: d.pin.updatedAt + MODEL_REVIEW.ttlSeconds * 1000, status: 'pending', deciders: [] };
  d.latestReview = key;
}

/** A decision on the latest review; when it is still the pin's review, the pin moves at once (core's `settleDecidedReview`). */
function review(state: ModelState, action: Extract<Action, { kind: 'review' }>): StepResult {
  const key = state.definition.latestReview!;
  const request = state.definition.reviews[key]!;
  if (!(MODEL_REVIEW.eligible as readonly string[]).includes(action.approver)) return same(state, { status: 'not_eligible' });
  if (state.now >= request.expiresAt && request.status === 'pending') return { ...same(state, { status: 'expired' }), writes: true };
  if (request.status !== 'pending') return { ...same(state, { status: 'already_decided' }), writes: true };
  const next = clone(state);
  const decided = next.definition.reviews[key]!;
  decided.deciders.push(action.approver);
  decided.status = action.decision === 'approve' ? 'approved' : 'denied';
  const pin = next.definition.pin;
  if (pin.status === 'changed' && reviewKeyOf(pin) === key) {
    next.definition.pin =
      decided.status === 'approved' ? { status: 'trusted', trusted: pin.pending, updatedAt: next.now } : { ...pin, status: 'disabled', updatedAt: next.now };
  }
  return { next, expected: [{ status: 'ok' }], writes: true };
}

function propose(state: ModelState, action: Extract<Action, { kind: 'propose' }>): StepResult {
  const next = clone(state);
  // A call to the registered tool is refused before it is recorded unless its current definition is trusted (invariant 9).
  const current = next.definition.current;
  const trusted = action.calls.some((c) => c.tool === REGISTERED_TOOL) ? admit(next, current) : true;
  const owner = state.runOwner[action.run];
  if (owner !== undefined && owner !== action.agent) {
    return same(next, ...action.calls.map((c) => ({ status: 'rejected', reason: c.tool === REGISTERED_TOOL && !trusted ? 'definition_mismatch' : 'run_owned_by_other_agent' })));
  }
  next.runOwner[action.run] = action.agent;
  let writes = false;
  const expected = action.calls.map((spec): Expected => {
    const key = `${action.run}/${spec.callId}`;
    if (spec.tool === REGISTERED_TOOL && !trusted) return { status: 'rejected', reason: 'definition_mismatch' };
    const existing = next.calls[key];
    if (existing !== undefined) {
      const sameCall =
        existing.tool === spec.tool &&
        JSON.stringify(argumentsOf(existing.tool, existing.amount)) === JSON.stringify(argumentsOf(spec.tool, spec.amount)) &&
        existing.definition === (spec.tool === REGISTERED_TOOL ? current : undefined);
      if (!sameCall) return { status: 'rejected', reason: 'call_conflict' };
      return outcomeOfVerdict(existing.verdict);
    }
    writes = true;
    const verdict = verdictOf(spec.tool, spec.amount);
    // Propose-and-authorize: an allowed call is recorded consumed in the same write, and its
    // grant handed over with the answer (`hasGrant` is set from the answer: withAgentKnowledge).
    const consumed = action.authorize === true && verdict.kind === 'allow';
    next.calls[key] = {
      key,
      run: action.run,
      agent: action.agent,
      tool: spec.tool,
      amount: spec.amount,
      verdict: verdict.kind,
      state: consumed ? 'dispatched' : 'proposed',
      hasToken: false,
      hasGrant: false,
      definition: spec.tool === REGISTERED_TOOL ? current : undefined,
      request:
        verdict.kind === 'approve'
          ? { expiresAt: state.now + verdict.ttlMs, required: verdict.required, eligible: verdict.eligible, deciders: [], approvals: 0, status: 'pending' }
          : undefined,
    };
    return consumed ? { status: 'allowed', reason: GRANTED } : outcomeOfVerdict(verdict.kind);
  });
  // The first proposal of a run makes the agent its owner; nothing new recorded, nothing owned.
  if (!writes && owner === undefined) delete next.runOwner[action.run];
  return { next, expected, writes };
}

/** The `reason` the real side reports for an `allowed` answer that carried a grant (propose-and-authorize). */
export const GRANTED = 'granted';

function outcomeOfVerdict(verdict: ModelCall['verdict']): Expected {
  if (verdict === 'allow') return { status: 'allowed' };
  if (verdict === 'deny') return { status: 'denied', reason: 'policy_deny' };
  return { status: 'approval_required' };
}

/** The checks decide, edit and revoke share before the store is asked: eligibility. */
function ineligible(call: ModelCall, approver: string): boolean {
  return !call.request!.eligible.includes(approver);
}

function decide(state: ModelState, action: Extract<Action, { kind: 'decide' }>): StepResult {
  const call = state.calls[action.call]!;
  const request = call.request!;
  if (ineligible(call, action.approver)) return same(state, { status: 'not_eligible' });
  const status = effective(request, state.now);
  if (status === 'expired') return { ...same(state, { status: 'expired' }), writes: true };
  if (status !== 'pending') return { ...same(state, { status: 'already_decided' }), writes: true };
  if (request.deciders.includes(action.approver)) return { ...same(state, { status: 'duplicate_approver' }), writes: true };
  const next = clone(state);
  const changed = next.calls[action.call]!.request!;
  changed.deciders.push(action.approver);
  if (action.decision === 'deny') changed.status = 'denied';
  else {
    changed.approvals += 1;
    if (changed.approvals >= changed.required) changed.status = 'approved';
  }
  return { next, expected: [{ status: 'ok' }], writes: true };
}

/** The edited call's key: the original's with `~edit` (its real call id is `<call id>~edit-<proposal id>`). */
export function editedKey(key: string): string {
  return `${key}~edit`;
}

function edit(state: ModelState, action: Extract<Action, { kind: 'edit' }>): StepResult {
  const call = state.calls[action.call]!;
  // An edit that changes nothing is a plain approval of the recorded call (core's approve path).
  if (action.amount === call.amount) return decide(state, { kind: 'decide', approver: action.approver, call: action.call, decision: 'approve' });
  const request = call.request!;
  if (ineligible(call, action.approver)) return same(state, { status: 'not_eligible' });
  const status = effective(request, state.now);
  if (status === 'expired') return same(state, { status: 'expired' });
  if (status !== 'pending') return same(state, { status: 'already_decided' });
  const target = editedKey(action.call);
  const next = clone(state);
  next.calls[action.call]!.request!.status = 'edited';
  const verdict = verdictOf('transfer', action.amount);
  // The edited call carries the editor's approval: an allowed edit keeps the original rule,
  // one that needs approval gets its own (the finance rule, which the editor is eligible under).
  next.calls[target] = {
    key: target,
    run: call.run,
    agent: call.agent,
    tool: 'transfer',
    amount: action.amount,
    // An edited call runs only by consuming its own approval; today's core authorizes an
    // allowed one as allowed (known defect `editedCallRunsWithoutItsApproval`).
    verdict: verdict.kind === 'allow' && state.rules.editedAllowedCallSkipsApproval ? 'allow' : 'approve',
    state: 'proposed',
    hasToken: false,
    hasGrant: false,
    request: {
      // Learned from the gate's answer (the sooner of now + TTL and the original's deadline), see system.ts.
      expiresAt: request.expiresAt,
      required: 1,
      eligible: request.eligible,
      deciders: [action.approver],
      approvals: 1,
      status: 'approved',
    },
  };
  return { next, expected: [{ status: 'ok' }], writes: true };
}

function revoke(state: ModelState, action: Extract<Action, { kind: 'revoke' }>): StepResult {
  const call = state.calls[action.call]!;
  if (ineligible(call, action.approver)) return same(state, { status: 'not_eligible' });
  const status = effective(call.request!, state.now);
  if (status !== 'pending' && status !== 'approved') return { ...same(state, { status: 'not_revocable' }), writes: true };
  const next = clone(state);
  next.calls[action.call]!.request!.status = 'revoked';
  return { next, expected: [{ status: 'ok' }], writes: true };
}

/** Withdrawing one's own approval while the request waits for more (core's `withdrawalRefusal`). */
function withdraw(state: ModelState, action: Extract<Action, { kind: 'withdraw' }>): StepResult {
  const call = state.calls[action.call]!;
  if (ineligible(call, action.approver)) return same(state, { status: 'not_eligible' });
  const request = call.request!;
  const status = effective(request, state.now);
  if (status === 'expired') return { ...same(state, { status: 'expired' }), writes: true };
  if (status !== 'pending') return { ...same(state, { status: 'already_decided' }), writes: true };
  // While pending, every decision is an approval (a deny closes the request).
  if (!request.deciders.includes(action.approver)) return { ...same(state, { status: 'no_approval' }), writes: true };
  const next = clone(state);
  const changed = next.calls[action.call]!.request!;
  changed.deciders = changed.deciders.filter((d) => d !== action.approver);
  changed.approvals -= 1;
  return { next, expected: [{ status: 'ok' }], writes: true };
}

/** Which held token an `other` authorize presents: the first other call (by key) whose token the agent holds. */
export function otherTokenKey(state: ModelState, key: string): string | undefined {
  return Object.keys(state.calls)
    .sort()
    .find((k) => k !== key && state.calls[k]!.hasToken);
}

function authorize(before: ModelState, action: Extract<Action, { kind: 'authorize' }>): StepResult {
  const call = before.calls[action.call]!;
  if (call.agent !== action.agent) return same(before, { status: 'not_approved', reason: 'unknown_call' });
  // Before policy or approval: the tool's current definition must be the call's, and trusted now
  // (an approval is bound to the digest it was given under: definition_mismatch under any other).
  let state = before;
  if (call.tool === REGISTERED_TOOL) {
    state = clone(before);
    const trusted = admit(state, state.definition.current);
    if (!trusted || call.definition !== state.definition.current) return same(state, { status: 'not_approved', reason: 'definition_mismatch' });
  }
  if (call.verdict === 'deny') return same(state, { status: 'denied', reason: 'policy_deny' });
  const grant = (): StepResult => {
    const next = clone(state);
    const granted = next.calls[action.call]!;
    granted.state = 'dispatched';
    granted.hasGrant = true;
    if (granted.verdict === 'approve') granted.request!.status = 'consumed';
    return { next, expected: [{ status: 'authorized' }], writes: true };
  };
  const refusedAtConsume = (reason: string): StepResult => ({ ...same(state, { status: 'not_approved', reason }), writes: true });
  if (call.verdict === 'allow') return call.state === 'proposed' ? grant() : refusedAtConsume('already_consumed');

  const request = call.request!;
  const status = effective(request, state.now);
  const token = action.token === 'own' && call.hasToken ? 'own' : action.token === 'other' && otherTokenKey(state, action.call) !== undefined ? 'other' : 'none';
  if (token === 'other') return same(state, { status: 'not_approved' });
  if (token === 'none') {
    switch (status) {
      case 'pending':
        return same(state, { status: 'approval_required' });
      case 'denied':
        return same(state, { status: 'denied', reason: 'approval_denied' });
      case 'approved':
        return same(state, { status: 'not_approved', reason: 'missing' });
      case 'expired':
        return same(state, { status: 'not_approved', reason: 'expired' });
      case 'revoked':
        return same(state, { status: 'not_approved', reason: 'approval_revoked' });
      case 'consumed':
        return same(state, { status: 'not_approved', reason: 'already_consumed' });
      case 'edited':
        return same(state, { status: 'not_approved', reason: 'approval_edited' });
    }
  }
  // The call's own token, minted when the request was approved, carries its deadline: the
  // verifier refuses it past the deadline (plus the gate's clock tolerance) whatever the
  // request's status; inside the tolerance the store's consume decides.
  if (state.now >= request.expiresAt + TOKEN_CLOCK_TOLERANCE_MS) return same(state, { status: 'not_approved', reason: 'expired' });
  if (status === 'expired') return refusedAtConsume('expired');
  if (status === 'approved') return grant();
  if (status === 'revoked') return refusedAtConsume('approval_revoked');
  if (status === 'consumed') return refusedAtConsume('already_consumed');
  return same(state, { status: 'not_approved' });
}

/** The result a completion records (what the tool "returned"). */
export function completionOf(call: Pick<ModelCall, 'amount'>, outcome: 'succeeded' | 'failed') {
  return outcome === 'succeeded' ? { status: 'succeeded' as const, result: { transferred: call.amount } } : { status: 'failed' as const, error: 'tool failed' };
}

function complete(state: ModelState, action: Extract<Action, { kind: 'complete' }>): StepResult {
  const call = state.calls[action.call]!;
  if (call.state === 'dispatched') {
    const next = clone(state);
    next.calls[action.call]!.state = action.outcome;
    return { next, expected: [{ status: 'ok' }], writes: true };
  }
  if (call.state === action.outcome) return same(state, { status: 'ok' });
  return { ...same(state, { status: 'result_conflict' }), writes: true };
}
