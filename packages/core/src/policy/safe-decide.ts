import type { PolicyEngine, PolicyInput, Verdict } from './types.ts';
import { toWellFormedVerdict } from './verdict-shape.ts';

export interface DecideSafelyOptions {
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
export async function decideSafely(
  engine: PolicyEngine,
  input: PolicyInput,
  options: DecideSafelyOptions = {},
): Promise<Verdict> {
  let returned: unknown;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const pending = Promise.resolve(engine.decide(input));
    const { timeoutMs } = options;
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
    return { kind: 'deny', ruleId: undefined, reason: 'policy_error' };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }

  try {
    return toWellFormedVerdict(returned) ?? { kind: 'deny', ruleId: undefined, reason: 'unknown_verdict' };
  } catch {
    // A getter or proxy trap that throws while we read the verdict.
    return { kind: 'deny', ruleId: undefined, reason: 'unknown_verdict' };
  }
}
