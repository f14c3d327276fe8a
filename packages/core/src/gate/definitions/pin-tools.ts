import type { PinFileEntry } from '../../catalog/pin-file.ts';
import type { ToolPin } from '../../catalog/types.ts';
import { idProblem } from '../../call-ids.ts';
import { auditPin } from './admit-definition.ts';
import type { GateDeps } from '../config.ts';

export type { PinFileEntry };

/** What pinning needs of the gate: it writes pins and the audit chain, and announces each pin. */
export type PinDeps = Pick<GateDeps, 'definitions' | 'audit' | 'clock' | 'events'>;

export type PinToolsOutcome = { ok: true; pins: ToolPin[] } | { ok: false; reason: 'invalid_pin_file' | 'store_unavailable'; message: string };

/**
 * An operator's pins (`countersign tools pin FILE`): each tool becomes trusted under the
 * listed digest, whatever its pin was (this is also how a disabled tool is enabled
 * again). Audited as `definition_pinned` with `via: pin_file`. Takes only what it uses,
 * so the CLI pins on a store without the signing keys a whole gate needs.
 */
export async function pinTools(deps: PinDeps, entries: readonly PinFileEntry[], actor: string): Promise<PinToolsOutcome> {
  for (const entry of entries) {
    const problem = idProblem('tool name', entry.toolName);
    if (problem !== undefined) return { ok: false, reason: 'invalid_pin_file', message: problem };
  }
  try {
    const now = deps.clock();
    const pins: ToolPin[] = [];
    for (const entry of entries) {
      if (entry.definitionText !== undefined) await deps.definitions.recordDefinition(entry.digest, entry.definitionText, now);
      const previous = await deps.definitions.getPin(entry.toolName);
      const pin: ToolPin = { toolName: entry.toolName, status: 'trusted', trustedDigest: entry.digest, updatedAt: now };
      await deps.definitions.putPin(pin);
      await auditPin(deps, pin, previous?.trustedDigest, 'pin_file', actor);
      pins.push(pin);
    }
    return { ok: true, pins };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: error instanceof Error ? error.message : String(error) };
  }
}
