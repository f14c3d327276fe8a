import { ASK, resolveInMemory } from '../../catalog/static-catalog.ts';
import type { CatalogEntry } from '../../catalog/types.ts';
import type { Proposal } from '../../ledger/types.ts';
import { admitDefinition, admittedWithoutStore } from './admit-definition.ts';
import type { GateDeps } from '../config.ts';
import { entryFor } from '../common/tool-scope.ts';

export type CallDefinition =
  | { ok: true; entry: CatalogEntry }
  | { ok: false; status: 'denied'; reason: 'unknown_tool'; message: string }
  | { ok: false; status: 'not_approved'; reason: 'definition_mismatch'; message: string };

/**
 * At dispatch (authorize), right before anything runs: the tool must still exist, its
 * current definition must be the one the call was proposed under, and that definition
 * must be trusted now (invariant 9), and the tool must be one the call's agent may use
 * (`mayUseTool`). A definition that changed after the call was
 * recorded disables the call even if it was approved; a change seen here also moves
 * the pin and opens the review, as at propose.
 */
export function checkCallDefinition(deps: GateDeps, proposal: Proposal): CallDefinition | Promise<CallDefinition> {
  // A code-registered tool whose sealed definition this gate already recorded is answered in
  // this turn (the commonest dispatch); anything that needs the catalogue or the store awaits.
  const known = resolveInMemory(deps.catalog, proposal.toolName);
  if (known !== ASK && known !== undefined && known.definitionDigest === proposal.definitionDigest && admittedWithoutStore(deps, known)) {
    return { ok: true, entry: known };
  }
  return checkResolved(deps, proposal);
}

async function checkResolved(deps: GateDeps, proposal: Proposal): Promise<CallDefinition> {
  // A tool registered by an agent other than the call's (and not shared) is unknown to it.
  const entry = entryFor(deps, await deps.catalog.resolve(proposal.toolName), proposal.agent);
  if (entry === undefined) return { ok: false, status: 'denied', reason: 'unknown_tool', message: `no tool named ${proposal.toolName} is registered` };
  if (proposal.definitionDigest === undefined && entry.definitionDigest !== undefined) {
    // Recorded while the tool was unlisted (a recorder that saw the model's call before the gateway listed the tool):
    // nothing about its definition was approved, which is not the same as a definition that changed.
    const message = `${proposal.toolName} was not a listed tool when the model called it (no definition was recorded with the call); ask the model again now that it is listed`;
    return { ok: false, status: 'denied', reason: 'unknown_tool', message };
  }
  if (entry.definitionDigest !== proposal.definitionDigest) {
    // Still admitted, so a change first noticed at dispatch opens its review too.
    await admitDefinition(deps, entry);
    return mismatch('tool definition changed since the call was proposed');
  }
  if (admittedWithoutStore(deps, entry)) return { ok: true, entry };
  const admitted = await admitDefinition(deps, entry);
  return admitted.ok ? { ok: true, entry } : mismatch(admitted.message);
}

function mismatch(message: string): CallDefinition {
  return { ok: false, status: 'not_approved', reason: 'definition_mismatch', message };
}
