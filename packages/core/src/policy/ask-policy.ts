import type { PolicyEngine, PolicyInput, Verdict } from './types.ts';
import { toWellFormedVerdict } from './verdict-shape.ts';

export interface AskPolicyOptions {
  /**
   * Deny with `policy_error` if the engine has not answered within this many
   * milliseconds (for remote engines such as OPA). No limit when omitted.
   */
  timeoutMs?: number | undefined;
}

/**
 * The only way the gate should ask a policy engine (invariant 1). Never throws and
 * never rejects: a throw, a rejection or a timeout is `deny`/`policy_error`; anything
 * returned that is not a well-formed `Verdict` (unknown kind, approve without its
 * approval block, requiredApprovals < 1, ...) is `deny`/`unknown_verdict`.
 */
export async function askPolicy(
  engine: PolicyEngine,
  input: PolicyInput,
  options: AskPolicyOptions = {},
): Promise<Verdict> {
  return askPolicyNow(engine, input, options);
}

/**
 * `askPolicy` without a promise when the engine answers synchronously (the built-in
 * rule engine always does): the gate's hot paths take the verdict in the same turn instead
 * of an await per call. A thenable answer goes the async way, with the same timeout. Same
 * verdicts as `askPolicy` in every case; never throws, never rejects. Not part of the
 * public API.
 */
export function askPolicyNow(engine: PolicyEngine, input: PolicyInput, options?: AskPolicyOptions): Verdict | Promise<Verdict> {
  let returned: unknown;
  try {
    returned = engine.verdictFor(input);
    // Reading `then` may itself throw (a proxy): that is a policy error too.
    // (No default `{}` for options: that would be an object per call on the hot paths.)
    if (isThenable(returned)) return settle(returned, options?.timeoutMs);
  } catch {
    return policyError();
  }
  return wellFormed(returned);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

async function settle(pending: PromiseLike<unknown>, timeoutMs: number | undefined): Promise<Verdict> {
  let returned: unknown;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    returned =
      timeoutMs === undefined
        ? await pending
        : await Promise.race([
            pending,
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error('policy engine timed out')), timeoutMs);
            }),
          ]);
  } catch {
    return policyError();
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
  return wellFormed(returned);
}

function wellFormed(returned: unknown): Verdict {
  try {
    return toWellFormedVerdict(returned) ?? { kind: 'deny', ruleId: undefined, reason: 'unknown_verdict' };
  } catch {
    // A getter or proxy trap that throws while we read the verdict.
    return { kind: 'deny', ruleId: undefined, reason: 'unknown_verdict' };
  }
}

function policyError(): Verdict {
  return { kind: 'deny', ruleId: undefined, reason: 'policy_error' };
}
