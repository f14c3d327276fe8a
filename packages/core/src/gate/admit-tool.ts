import { admitDefinition } from './admit-definition.ts';
import type { GateDeps } from './config.ts';

export type ToolAdmission =
  | { ok: true; toolName: string; definitionDigest?: string | undefined }
  | {
      ok: false;
      toolName: string;
      reason: 'unknown_tool' | 'definition_mismatch' | 'store_unavailable';
      message: string;
      /** For `definition_mismatch`: the review a person must decide first, when one is open. */
      reviewRequestId?: string | undefined;
    };

/**
 * Whether the tool's current definition may be shown and called now, before any call
 * exists: what a gateway asks for each tool it lists (invariant 9). The same admission
 * as propose: a changed definition moves the pin, opens its review and is audited, so a
 * change first seen on a listing is handled exactly like one first seen on a call.
 * Never throws: a store outage answers `store_unavailable` (the caller hides the tool).
 */
export async function admitTool(deps: GateDeps, toolName: string): Promise<ToolAdmission> {
  try {
    const entry = await deps.catalog.resolve(toolName);
    if (entry === undefined) return { ok: false, toolName, reason: 'unknown_tool', message: `no tool named ${toolName} is registered` };
    const admitted = await admitDefinition(deps, entry);
    if (admitted.ok) return { ok: true, toolName, definitionDigest: entry.definitionDigest };
    return { ok: false, toolName, reason: admitted.reason, message: admitted.message, reviewRequestId: admitted.reviewRequestId };
  } catch (error) {
    return { ok: false, toolName, reason: 'store_unavailable', message: error instanceof Error ? error.message : String(error) };
  }
}
