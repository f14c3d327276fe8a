import { admitDefinition } from './admit-definition.ts';
import type { Agent } from '../common/agent.ts';
import type { GateDeps } from '../config.ts';
import { entryFor } from '../common/tool-scope.ts';

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
 *
 * With `agent` (a remote gateway asking over HTTP), a tool another agent registered is
 * `unknown_tool`, exactly like one nobody registered (unless the deployment shares it,
 * `sharedTools`): an agent cannot open or move another agent's reviews by asking.
 */
export async function admitTool(deps: GateDeps, toolName: string, agent?: Agent): Promise<ToolAdmission> {
  const unknown: ToolAdmission = { ok: false, toolName, reason: 'unknown_tool', message: `no tool named ${toolName} is registered` };
  try {
    const found = await deps.catalog.resolve(toolName);
    const entry = agent === undefined ? found : entryFor(deps, found, agent.id);
    if (entry === undefined) return unknown;
    const admitted = await admitDefinition(deps, entry);
    if (admitted.ok) return { ok: true, toolName, definitionDigest: entry.definitionDigest };
    return { ok: false, toolName, reason: admitted.reason, message: admitted.message, reviewRequestId: admitted.reviewRequestId };
  } catch (error) {
    return { ok: false, toolName, reason: 'store_unavailable', message: error instanceof Error ? error.message : String(error) };
  }
}
