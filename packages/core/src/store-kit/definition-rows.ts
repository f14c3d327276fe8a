import type { ToolPin, ToolRegistration } from '../catalog/types.ts';
import type { Row } from './row-fields.ts';

/** A pin as SQL parameters, in the column order both SQL stores use: name, status, trusted, pending, updated. */
export function pinValues(pin: ToolPin): [string, string, string | null, string | null, number] {
  return [pin.toolName, pin.status, pin.trustedDigest ?? null, pin.pendingDigest ?? null, pin.updatedAt];
}

export function pinFromRow(row: Row): ToolPin {
  return {
    toolName: String(row.tool_name),
    status: String(row.status) as ToolPin['status'],
    ...(row.trusted_digest === null ? {} : { trustedDigest: String(row.trusted_digest) }),
    ...(row.pending_digest === null ? {} : { pendingDigest: String(row.pending_digest) }),
    updatedAt: Number(row.updated_at),
  };
}

export function registrationFromRow(row: Row): ToolRegistration {
  return { toolName: String(row.tool_name), definitionDigest: String(row.definition_digest), agent: String(row.agent), updatedAt: Number(row.updated_at) };
}
