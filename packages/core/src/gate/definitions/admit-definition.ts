import type { CatalogEntry, ToolPin } from '../../catalog/types.ts';
import { sha256Hex } from '../../digest.ts';
import { emit } from '../../events/emit.ts';
import type { ApprovalRequest } from '../../ledger/types.ts';
import { auditBestEffort } from '../common/audit-safely.ts';
import type { GateDeps } from '../config.ts';
import { findReview, openReview, reviewState } from './definition-review.ts';
import { definitionText } from '../../catalog/tools.ts';
import { sealedDefinition } from '../../catalog/sealed-definition.ts';

export type Admission =
  | { ok: true }
  | {
      ok: false;
      reason: 'definition_mismatch';
      message: string;
      /** The review a person must decide before the tool runs again, when one is open. */
      reviewRequestId?: string | undefined;
    };

// Pins change rarely; a writer that loses a race re-reads and decides again, a few times at most.
const MAX_ATTEMPTS = 4;

/**
 * Whether calls may run under the tool's current definition (invariant 9). Records the
 * definition by digest the first time this process sees it. Code-registered tools are
 * vouched for by their catalogue. Any other tool runs only when the store's pin trusts
 * exactly this digest; otherwise the pin moves to `changed` (once, by compare-and-set),
 * one review request is opened and a `definition_changed` record is audited, and the
 * answer is no until a person approves the new definition.
 */
export async function admitDefinition(deps: GateDeps, entry: CatalogEntry): Promise<Admission> {
  const digest = entry.definitionDigest;
  if (digest === undefined && entry.definition === undefined) return { ok: true };
  if (entry.definition !== undefined) {
    // A catalogue's digest is checked, not believed: the definition is what the model sees.
    // A sealed (deep-frozen) definition's text was digested when it was sealed and cannot
    // have changed since, so only its remembered digest is compared; any other definition
    // is canonicalized once per call: the same text is digested and, the first time, recorded.
    const sealed = sealedDefinition(entry.definition);
    if (sealed === undefined || sealed.digest !== digest || !deps.recordedDefinitions.has(digest)) {
      const text = sealed?.text ?? definitionText(entry.definition);
      if (digest !== sha256Hex(text)) return refuse(`${entry.name}: the catalogue's digest is not its definition's`);
      await recordOnce(deps, digest, text);
    }
  }
  if (entry.vouched === true) return { ok: true };
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const decided = await admissionOf(deps, entry.name, digest!, entry.registeredBy);
    if (decided !== 'retry') return decided;
  }
  return refuse(`${entry.name}: its pin kept changing; try again`);
}

/**
 * True when `admitDefinition` would answer ok without reading the store: a vouched-for
 * entry whose sealed definition has the entry's digest, already recorded by this gate.
 * Lets the dispatch hot path skip an async round for the commonest case.
 */
export function admittedWithoutStore(deps: Pick<GateDeps, 'recordedDefinitions'>, entry: CatalogEntry): boolean {
  if (entry.vouched !== true || entry.definition === undefined || entry.definitionDigest === undefined) return false;
  return sealedDefinition(entry.definition)?.digest === entry.definitionDigest && deps.recordedDefinitions.has(entry.definitionDigest);
}

/** `registeredBy`: the agent that registered this definition, named on the review it opens. */
async function admissionOf(deps: GateDeps, toolName: string, digest: string, registeredBy: string | undefined): Promise<Admission | 'retry'> {
  const now = deps.clock();
  const pin = await deps.definitions.getPin(toolName);
  if (pin?.status === 'trusted' && pin.trustedDigest === digest) return { ok: true };
  if (pin === undefined && deps.trustOnFirstUse) {
    const trusted: ToolPin = { toolName, status: 'trusted', trustedDigest: digest, updatedAt: now };
    if (!(await movePin(deps, undefined, trusted))) return 'retry';
    await auditPin(deps, trusted, undefined, 'trust_on_first_use', 'system');
    return { ok: true };
  }
  if (pin?.status === 'disabled') return disabled(toolName);
  if (pin?.status === 'changed' && pin.pendingDigest === digest) return await followReview(deps, pin, now, registeredBy);
  if (pin?.status === 'changed' && pin.trustedDigest === digest) {
    // The tool went back to the definition a person trusted: trusted again, nothing to review
    // (the review of the change it reverted is left stale: it no longer matches the pin).
    const reverted: ToolPin = { toolName, status: 'trusted', trustedDigest: digest, updatedAt: Math.max(now, pin.updatedAt + 1) };
    if (!(await movePin(deps, pin, reverted))) return 'retry';
    await auditPin(deps, reverted, pin.pendingDigest, 'reverted_to_trusted', 'system');
    return { ok: true };
  }
  // Unpinned (without TOFU), or a definition other than the trusted or the reviewed one.
  // Each move of the pin gets a later time than the last: the review is keyed by it, so a
  // change made again in the same millisecond opens its own review, never an older one's.
  const updatedAt = pin === undefined ? now : Math.max(now, pin.updatedAt + 1);
  const changed: ToolPin = { toolName, status: 'changed', trustedDigest: pin?.trustedDigest, pendingDigest: digest, updatedAt };
  if (!(await movePin(deps, pin, changed))) return 'retry';
  const request = await openReviewOrLater(deps, changed, registeredBy);
  if (request === undefined) return refuse(`${toolName}'s definition is not the trusted one; its review opens on the next look`);
  await auditBestEffort(deps.audit, {
    type: 'definition_changed',
    at: now,
    toolName,
    requestId: request.requestId,
    actor: 'system',
    detail: { previousDigest: changed.trustedDigest ?? null, digest },
  });
  announcePin(deps, changed, changed.trustedDigest, request.requestId);
  return refuse(`${toolName}'s definition is not the trusted one; it waits for review`, request.requestId);
}

/** A `changed` pin whose definition is the one under review: apply the review if it was decided. */
async function followReview(deps: GateDeps, pin: ToolPin, now: number, registeredBy: string | undefined): Promise<Admission | 'retry'> {
  const request = await findReview(deps, pin);
  const state = reviewState(request, now);
  if (state === 'approved' || state === 'denied') {
    // The pin this settle wrote decides, without reading it back: a read failing after the
    // write committed would answer a failure for a step that took effect. A settle that threw
    // may have moved the pin with its reply lost (movePin's rule), and one that lost the race
    // moved nothing: the next round reads the pin again and answers from what the store shows.
    const settled = await settleReview(deps, pin, state, 'system').catch(() => undefined);
    if (settled === undefined) return 'retry';
    return settled.status === 'trusted' ? { ok: true } : disabled(pin.toolName);
  }
  if (state === 'open') return refuse(`${pin.toolName}'s new definition waits for review`, request?.requestId);
  if (state === 'missing') {
    // The writer that moved the pin is opening it right now (or crashed before): the same key makes it one review.
    const opened = await openReviewOrLater(deps, pin, registeredBy);
    return refuse(`${pin.toolName}'s new definition waits for review`, opened?.requestId);
  }
  // The review expired: a fresh move of the pin, a fresh review.
  const again: ToolPin = { ...pin, updatedAt: Math.max(now, pin.updatedAt + 1) };
  if (!(await movePin(deps, pin, again))) return 'retry';
  const reopened = await openReviewOrLater(deps, again, registeredBy);
  return refuse(`${pin.toolName}'s new definition waits for review`, reopened?.requestId);
}

/**
 * Applies a decided review to the pin it was opened for: approved → trusted under the new
 * digest, denied → disabled. A pin that moved on since (another change, an operator's pin)
 * is left alone: the review is stale. Returns the pin this call wrote, if it moved it.
 */
export async function settleReview(deps: GateDeps, pin: ToolPin, state: 'approved' | 'denied', actor: string): Promise<ToolPin | undefined> {
  const now = deps.clock();
  const next: ToolPin =
    state === 'approved'
      ? { toolName: pin.toolName, status: 'trusted', trustedDigest: pin.pendingDigest, updatedAt: now }
      : { ...pin, status: 'disabled', updatedAt: now };
  if (!(await deps.definitions.replacePin(pin, next))) return undefined;
  await auditPin(deps, next, pin.trustedDigest, state === 'approved' ? 'review' : 'review_denied', actor);
  return next;
}

/**
 * Called after a decision on a review request: when it settled the review (approved or
 * denied) and the pin still waits on exactly this request, the pin moves now.
 */
export async function settleDecidedReview(deps: GateDeps, toolName: string, request: ApprovalRequest, actor: string): Promise<void> {
  const state = reviewState(request, deps.clock());
  if (state !== 'approved' && state !== 'denied') return;
  const pin = await deps.definitions.getPin(toolName);
  if (pin?.status !== 'changed') return;
  const current = await findReview(deps, pin);
  if (current?.requestId === request.requestId) await settleReview(deps, pin, state, actor);
}

export async function auditPin(deps: Pick<GateDeps, 'audit' | 'clock' | 'events'>, pin: ToolPin, previousDigest: string | undefined, via: string, actor: string): Promise<void> {
  await auditBestEffort(deps.audit, {
    type: 'definition_pinned',
    at: deps.clock(),
    toolName: pin.toolName,
    actor,
    detail: {
      status: pin.status,
      digest: (pin.status === 'trusted' ? pin.trustedDigest : pin.pendingDigest) ?? null,
      previousDigest: previousDigest ?? null,
      via,
    },
  });
  announcePin(deps, pin, previousDigest);
}

/** The lifecycle event for a pin that moved (after the store committed it): waiters and dashboards wake on it. */
function announcePin(deps: Pick<GateDeps, 'events'>, pin: ToolPin, previousDigest: string | undefined, requestId?: string): void {
  emit(deps.events, {
    type: 'definition_changed',
    at: pin.updatedAt,
    toolName: pin.toolName,
    definitionDigest: pin.status === 'trusted' ? pin.trustedDigest : pin.pendingDigest,
    previousDigest,
    pinStatus: pin.status === 'changed' ? 'changed_awaiting_review' : pin.status,
    ...(requestId === undefined ? {} : { requestId }),
  });
}

async function recordOnce(deps: GateDeps, digest: string, text: string): Promise<void> {
  if (deps.recordedDefinitions.has(digest)) return;
  await deps.definitions.recordDefinition(digest, text, deps.clock());
  deps.recordedDefinitions.add(digest);
}

/**
 * The review of a pin this step has moved, or undefined when the store failed opening it.
 * The pin's move stands either way, so the answer is the refusal it causes, never a store
 * failure (#32: the model found a rug pull answered `store_unavailable` after the pin had
 * moved); the next look at the tool finds the review missing and opens it (same key).
 */
async function openReviewOrLater(deps: GateDeps, pin: ToolPin, registeredBy: string | undefined): Promise<ApprovalRequest | undefined> {
  try {
    return await openReview(deps, pin, registeredBy);
  } catch {
    return undefined;
  }
}

/**
 * One compare-and-set of the pin. A write that threw may have committed with its reply
 * lost (#32: the model found a rug pull answered `store_unavailable` although the pin had
 * moved): so it is not answered as a failure but as "not moved by us", and the caller's
 * next round decides again on a fresh read of the pin (which shows the move if it stands).
 */
async function movePin(deps: GateDeps, expected: ToolPin | undefined, next: ToolPin): Promise<boolean> {
  try {
    return await deps.definitions.replacePin(expected, next);
  } catch {
    return false;
  }
}

function disabled(toolName: string): Admission {
  return refuse(`${toolName} is disabled: a reviewer refused its definition; an operator must pin one`);
}

function refuse(message: string, reviewRequestId?: string): Admission {
  return { ok: false, reason: 'definition_mismatch', message, ...(reviewRequestId === undefined ? {} : { reviewRequestId }) };
}
