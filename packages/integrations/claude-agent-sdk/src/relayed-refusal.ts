import { type GatePort, recordableRefusalText } from '@countersign/core/gate';
import type { GuardedContext } from '@countersign/core/integration';

/**
 * What the Claude runtime relays to the model as the `tool_result` of a call a
 * PreToolUse hook denied: `PreToolUse:<tool> hook error: <reason>`, the reason verbatim
 * (runtime 0.3.x, a plain string with `is_error`; read from the runtime, not documented).
 */
export const runtimeDenialPrefix = (toolName: string) => `PreToolUse:${toolName} hook error: `;

/**
 * With the relay check on, a refusal the hooks give is relayed back to the model by the
 * runtime, in every later request of the session (and again after a resume, from any
 * process). The ledger has no result for the refused call, so the hooks record the exact
 * text the runtime will relay (`reportRefusal`, `call_refused`): the relay check then
 * recognises it by the ledger, never by its format. The reason is first fitted to what
 * the ledger can record (printable, at most 300 characters with the runtime's prefix).
 *
 * Returns the reason to deny with. Never throws: a refusal the ledger did not take (the
 * call already ran, the gate is down) is refused when relayed (deny by default).
 */
export async function recordHookRefusal(port: Pick<GatePort, 'reportRefusal'>, context: GuardedContext, callId: string, toolName: string, reason: string): Promise<string> {
  const prefix = runtimeDenialPrefix(toolName);
  const fitted = recordableRefusalText(reason, prefix);
  if (fitted === undefined) return reason;
  try {
    await port.reportRefusal({ ...context, callId, reason: 'call_refused', detail: `${prefix}${fitted}` });
  } catch {
    // As above: not recorded, so refused when relayed.
  }
  return fitted;
}
