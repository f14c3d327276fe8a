import { verdictOf } from '../../audit/step-facts.ts';
import { verifyChain } from '../../audit/verify-chain.ts';
import { digestOf, type Observed, type RealSystem } from './system.ts';
import type { Expected, ModelState } from './model.ts';
import { type KnownDefect, MODEL_CALL_IDS, MODEL_DEFINITIONS, MODEL_RUNS, REGISTERED_TOOL } from './rules.ts';

/**
 * The invariants of the approval lifecycle, stated once, checked against the real store
 * after every step of every history:
 *
 * 1. No call runs without a verdict that allows it or an approval consumed exactly once
 *    (`checkGrant`: a grant's call is dispatched, its request consumed by that token; one grant per call).
 * 2. Nothing that was refused ran (each answer equals the model's, and the store read after it equals the model: a refused authorize leaves the call `proposed`).
 * 3. An edited call never runs the original (`checkGrant`: no grant for an `edited` request; a grant carries the ledger's arguments).
 * 4. A revoked or expired approval never runs (`checkGrant` at grant time, `checkGrantsStillHold` at the end).
 * 5. Every reported outcome is true in the store (the store read after each step equals the model; `claimOf` for faulted steps).
 * 6. The audit chain verifies and tells the same story as the ledger (`checkAuditStory`): the verdict of every recorded call, a record per decision, withdrawal, revocation, dispatch and result.
 * 7. A call to a tool whose current definition is not trusted never runs, policy verdict or
 *    approval notwithstanding; an approval given under one definition digest never runs a call
 *    under another (`checkGrant`: the pin trusts the call's digest and it is the tool's current one).
 *    Approving a review makes the tool usable again; reverting to the pinned definition does so
 *    without a review (the model's `admit`: each answer and the pin read after it equal the model).
 */

export class LifecycleViolation extends Error {
  readonly code = 'lifecycle_violation';
}

/**
 * What an answer says about the store when a store call failed under it: that the
 * action failed (nothing happened), that the gate cannot tell (once core answers a
 * lost reply with `outcome_unknown`), or anything else (the action's own outcome).
 * The one place this is decided: an action that took effect must answer its own
 * outcome or `unknown`; one that did not must answer a failure or `unknown`.
 */
export type Claim = 'failure' | 'unknown' | 'outcome';

export function claimOf(observed: Observed): Claim {
  if (observed.status === 'outcome_unknown' || observed.reason === 'outcome_unknown') return 'unknown';
  if (observed.status === 'store_unavailable' || observed.reason === 'store_unavailable') return 'failure';
  return 'outcome';
}

export function sameOutcome(observed: Observed, expected: Expected): boolean {
  return observed.status === expected.status && (expected.reason === undefined || observed.reason === expected.reason);
}

/** The part of the model the store must hold, in a form both sides produce. */
export function snapshotOf(model: ModelState): string {
  const calls: Record<string, unknown> = {};
  for (const [key, call] of Object.entries(model.calls)) {
    const request = call.request === undefined ? undefined : { status: call.request.status, deciders: [...call.request.deciders].sort(), expiresAt: call.request.expiresAt };
    calls[key] = { state: call.state, request };
  }
  const { pin, reviews } = model.definition;
  const reviewStatuses = Object.fromEntries(Object.entries(reviews).map(([key, r]) => [key, { status: r.status, deciders: r.deciders }]));
  return stable({ owners: model.runOwner, calls, registered: model.definition.current, pin: { status: pin.status, trusted: pin.trusted ?? null, pending: pin.pending ?? null, updatedAt: pin.updatedAt }, reviews: reviewStatuses });
}

/** A digest as the model names it (v1, v2), or the digest itself when it is neither. */
function definitionName(digest: string | undefined): string | null {
  if (digest === undefined) return null;
  return (Object.keys(MODEL_DEFINITIONS) as (keyof typeof MODEL_DEFINITIONS)[]).find((d) => digestOf(d) === digest) ?? digest;
}

/** The same view read from the store (unfaulted), for the keys the model knows and every base call that exists. */
export async function readSnapshot(system: RealSystem, model: ModelState): Promise<string> {
  const owners: Record<string, string> = {};
  for (const run of MODEL_RUNS) {
    const owner = await system.ledger.getRunOwner(run);
    if (owner !== undefined) owners[run] = owner;
  }
  const calls: Record<string, unknown> = {};
  const keys = new Set(Object.keys(model.calls));
  for (const run of MODEL_RUNS) {
    for (const id of MODEL_CALL_IDS) {
      if (!keys.has(`${run}/${id}`) && (await system.ledger.findProposalByCall(run, id)) !== undefined) calls[`${run}/${id}`] = 'unexpected';
    }
  }
  for (const key of keys) {
    const refs = system.refs[key];
    const found = refs === undefined ? undefined : await system.ledger.getProposalWithRequest(refs.proposalId);
    if (found === undefined) {
      calls[key] = 'missing';
      continue;
    }
    const { proposal, request } = found;
    const state = proposal.result?.status ?? proposal.state;
    // The closing deny of an edit is the original's record of the edit, not a decision the model counts.
    const deciders = request?.decisions.filter((d) => d.editedProposalId === undefined).map((d) => d.approver).sort();
    calls[key] = { state, request: request === undefined ? undefined : { status: request.status, deciders, expiresAt: request.expiresAt } };
  }
  const pin = await system.definitions.getPin(REGISTERED_TOOL);
  const reviews: Record<string, unknown> = {};
  // The reviews the model knows, and the one of the pin's current move if the store has it (a review the model does not expect shows).
  const reviewKeys = new Set(Object.keys(model.definition.reviews));
  const pinKey = pin?.status === 'changed' ? `${definitionName(pin.pendingDigest)}@${pin.updatedAt}` : undefined;
  if (pinKey !== undefined && !reviewKeys.has(pinKey) && (await system.reviewRequestId(pinKey)) !== undefined) reviewKeys.add(pinKey);
  for (const key of reviewKeys) {
    const requestId = await system.reviewRequestId(key);
    const request = requestId === undefined ? undefined : await system.ledger.getApprovalRequest(requestId);
    reviews[key] = request === undefined ? 'missing' : { status: request.status, deciders: request.decisions.map((d) => d.approver) };
  }
  const registration = await system.definitions.getRegistration(REGISTERED_TOOL);
  const pinView =
    pin === undefined ? 'missing' : { status: pin.status, trusted: definitionName(pin.trustedDigest), pending: definitionName(pin.pendingDigest), updatedAt: pin.updatedAt };
  return stable({ owners, calls, registered: definitionName(registration?.definitionDigest) ?? 'missing', pin: pinView, reviews });
}

/** Invariants 1, 3 and 4 at the moment a grant is handed out. */
export async function checkGrant(system: RealSystem, model: ModelState, key: string): Promise<void> {
  const record = system.grants.filter((g) => g.key === key).at(-1);
  if (record === undefined) return;
  const { grant } = record;
  const same = system.grants.filter((g) => g.grant.proposalId === grant.proposalId);
  if (same.length > 1) throw new LifecycleViolation(`call ${key} was granted ${same.length} times`);
  const found = await system.ledger.getProposalWithRequest(grant.proposalId);
  if (found === undefined) throw new LifecycleViolation(`grant for ${key} names a call the store does not have`);
  if (found.proposal.canonicalArgs !== grant.canonicalArgs) throw new LifecycleViolation(`grant for ${key} runs arguments that are not the ledger's`);
  if (found.proposal.state !== 'dispatched') throw new LifecycleViolation(`grant for ${key} but the call is ${found.proposal.state}`);
  if (found.proposal.toolName === REGISTERED_TOOL) {
    // Invariant 7: the call's definition is the tool's current one, and trusted.
    const pin = await system.definitions.getPin(REGISTERED_TOOL);
    const digest = found.proposal.definitionDigest;
    if (pin?.status !== 'trusted' || pin.trustedDigest !== digest) throw new LifecycleViolation(`grant for ${key} under definition ${definitionName(digest)}, which the pin does not trust (${JSON.stringify(pin)})`);
    if (digest !== digestOf(model.definition.current)) throw new LifecycleViolation(`grant for ${key} approved under ${definitionName(digest)} while the tool is ${model.definition.current}`);
  }
  const call = model.calls[key];
  if (call?.verdict === 'approve' || found.request !== undefined) {
    const request = found.request;
    if (request?.status === 'edited') throw new LifecycleViolation(`the original of edited call ${key} ran`);
    if (call?.verdict === 'approve') {
      if (request === undefined || request.status !== 'consumed' || request.tokenId !== grant.tokenId) {
        throw new LifecycleViolation(`grant for ${key} without its approval consumed by its token (request ${request?.status})`);
      }
      if (grant.authorizedAt >= request.expiresAt) throw new LifecycleViolation(`grant for ${key} after its approval expired`);
    }
  }
}

/** Invariant 4 over the whole history: no request of a call that ran reads revoked, denied or edited afterwards. */
export async function checkGrantsStillHold(
  system: RealSystem,
  model: ModelState,
  tolerated: Readonly<Record<KnownDefect, boolean>>,
  seen: (defect: KnownDefect) => void,
): Promise<void> {
  for (const { key, grant } of system.grants) {
    const found = await system.ledger.getProposalWithRequest(grant.proposalId);
    const status = found?.request?.status;
    if (status === 'revoked' || status === 'denied' || status === 'edited') {
      // Today an edited call that policy allows runs without consuming its approval (rules.ts).
      if (model.calls[key]?.verdict === 'allow' && found?.proposal.parentProposalId !== undefined && tolerated.editedCallRunsWithoutItsApproval) {
        seen('editedCallRunsWithoutItsApproval');
        continue;
      }
      throw new LifecycleViolation(`call ${key} ran, and its approval request now reads ${status}`);
    }
  }
}

/** Invariant 6: the chain verifies; one record with the verdict per recorded call, one dispatch record per dispatched call, one result record per result, a record per revocation and decision. */
export async function checkAuditStory(
  system: RealSystem,
  model: ModelState,
  tolerated: Readonly<Record<KnownDefect, boolean>>,
  seen: (defect: KnownDefect) => void,
): Promise<void> {
  const records = await system.audit.read({ limit: 1_000_000 });
  const verified = verifyChain(records);
  if (!verified.ok) throw new LifecycleViolation(`audit chain does not verify: ${verified.reason} at ${verified.index}`);
  const count = (type: string, proposalId: string) => records.filter((r) => r.type === type && r.proposalId === proposalId).length;
  for (const key of Object.keys(model.calls)) {
    const refs = system.refs[key];
    if (refs === undefined) continue;
    const found = await system.ledger.getProposalWithRequest(refs.proposalId);
    if (found === undefined) continue;
    // The verdict a call was recorded under is in the chain once: in its proposal record
    // (format 2), or in a verdict record of its own (format 1).
    const verdicts = records.filter((r) => r.proposalId === refs.proposalId && verdictOf(r) !== undefined).length;
    if (verdicts !== 1) throw new LifecycleViolation(`${key}: ${verdicts} records carry the verdict of a recorded call`);
    const dispatched = found.proposal.state === 'dispatched' ? 1 : 0;
    if (count('dispatch', refs.proposalId) !== dispatched) throw new LifecycleViolation(`${key}: ${count('dispatch', refs.proposalId)} dispatch records, ledger says ${found.proposal.state}`);
    const results = found.proposal.result === undefined ? 0 : 1;
    if (count('result', refs.proposalId) !== results) throw new LifecycleViolation(`${key}: ${count('result', refs.proposalId)} result records for ${results} results`);
    const request = found.request;
    if (request === undefined) continue;
    const revoked = request.status === 'revoked' ? 1 : 0;
    if (count('revocation', refs.proposalId) !== revoked) throw new LifecycleViolation(`${key}: ${count('revocation', refs.proposalId)} revocation records, request ${request.status}`);
    // A withdrawn approval leaves the request, not the chain: its record and the withdrawal's stay.
    const decisions = request.decisions.length;
    const recorded = count('decision', refs.proposalId) - count('withdrawal', refs.proposalId);
    const partOfEdit = request.status === 'edited' || found.proposal.parentProposalId !== undefined;
    if (recorded !== decisions && partOfEdit && tolerated.editAuditAfterLedger) {
      seen('editAuditAfterLedger');
      continue;
    }
    if (recorded !== decisions) throw new LifecycleViolation(`${key}: ${recorded} decision records (less withdrawals) for ${decisions} decisions`);
  }
}

function stable(value: unknown): string {
  return JSON.stringify(value, (_, v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));
}
