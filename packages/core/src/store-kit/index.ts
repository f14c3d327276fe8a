/**
 * Helpers for ledger and audit backends that keep rows in a SQL database: typed
 * column readers that treat a malformed row as `corrupt_record` (never as data),
 * and the row <-> record mappings both SQL stores share.
 */
export { auditEventJson, auditRecordFromRow } from './audit-row.ts';
export { integer, json, oneOf, type Row, text } from './row-fields.ts';
export { decisionParams, projectionsColumn, proposalFromRow, proposalParams, requestFromRow, requestParams } from './row-mapping.ts';
export { passkeyFromRow } from './passkey-rows.ts';
export { pinFromRow, pinValues, registrationFromRow } from './definition-rows.ts';
