import type { DenyReason, PolicyEngine, ToolVisibility } from './types.ts';

const DENY_REASONS: ReadonlySet<string> = new Set<DenyReason>(['policy_deny', 'unclassified_tool', 'policy_error', 'unknown_verdict']);

/**
 * The only way to ask an engine whether a tool is visible. Never throws: an engine
 * without `toolVisibility` shows every tool (each call is still decided); a throw or a
 * rejection hides it (`policy_error`, as `askPolicy` would deny its calls); a
 * malformed answer hides it (`unknown_verdict`). Hiding is for listings only: the
 * verdict on a call never depends on it.
 */
export async function toolVisibilitySafely(engine: PolicyEngine, toolName: string, principal: string): Promise<ToolVisibility> {
  let returned: unknown;
  try {
    if (typeof engine.toolVisibility !== 'function') return { visible: true };
    returned = await engine.toolVisibility(toolName, principal);
  } catch {
    return { visible: false, ruleId: undefined, reason: 'policy_error' };
  }
  try {
    return wellFormed(returned) ?? { visible: false, ruleId: undefined, reason: 'unknown_verdict' };
  } catch {
    return { visible: false, ruleId: undefined, reason: 'unknown_verdict' };
  }
}

function wellFormed(value: unknown): ToolVisibility | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { visible, ruleId, reason } = value as Record<string, unknown>;
  if (visible === true) return { visible: true };
  if (visible !== false) return undefined;
  if (ruleId !== undefined && (typeof ruleId !== 'string' || ruleId === '')) return undefined;
  if (typeof reason !== 'string' || !DENY_REASONS.has(reason)) return undefined;
  return { visible: false, ruleId, reason: reason as DenyReason };
}
