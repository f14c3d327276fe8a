import type { PasskeyAssertion, PasskeyEvidence } from './types.ts';

const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** Generous bounds for each field (a P-256 signature is ~72 bytes, client data a few hundred): never parse megabytes. */
const MAX_FIELD_CHARS: Record<keyof PasskeyAssertion, number> = {
  credentialId: 1366,
  authenticatorData: 4096,
  clientDataJSON: 4096,
  signature: 1024,
  userHandle: 128,
};
const REQUIRED = ['credentialId', 'authenticatorData', 'clientDataJSON', 'signature'] as const;

export type AssertionRead = { ok: true; assertion: PasskeyAssertion } | { ok: false; message: string };

/**
 * Reads an assertion from untrusted input (a JSON body, a form field): an object with
 * exactly the assertion's fields, each a non-empty base64url string within its bound.
 * Returns a clean copy; never throws.
 */
export function readPasskeyAssertion(value: unknown): AssertionRead {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'passkey assertion must be an object' };
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(key in MAX_FIELD_CHARS)) return { ok: false, message: `passkey assertion has an unknown field ${JSON.stringify(key.slice(0, 40))}` };
  }
  const fields: Partial<Record<keyof PasskeyAssertion, string>> = {};
  for (const key of Object.keys(MAX_FIELD_CHARS) as (keyof PasskeyAssertion)[]) {
    const field = record[key];
    if (field === undefined || field === null) {
      if ((REQUIRED as readonly string[]).includes(key)) return { ok: false, message: `passkey assertion lacks ${key}` };
      continue;
    }
    if (typeof field !== 'string' || field.length === 0 || field.length > MAX_FIELD_CHARS[key] || !BASE64URL.test(field)) {
      return { ok: false, message: `passkey assertion ${key} must be base64url of at most ${MAX_FIELD_CHARS[key]} characters` };
    }
    fields[key] = field;
  }
  const assertion: PasskeyAssertion = {
    credentialId: fields.credentialId as string,
    authenticatorData: fields.authenticatorData as string,
    clientDataJSON: fields.clientDataJSON as string,
    signature: fields.signature as string,
  };
  if (fields.userHandle !== undefined) assertion.userHandle = fields.userHandle;
  return { ok: true, assertion };
}

/** Reads stored evidence (an audit record's detail, a ledger row): an assertion plus its RP id and origin. */
export function readPasskeyEvidence(value: unknown): PasskeyEvidence | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { rpId, origin, ...rest } = value as Record<string, unknown>;
  if (typeof rpId !== 'string' || rpId === '' || typeof origin !== 'string' || origin === '') return undefined;
  const read = readPasskeyAssertion(rest);
  return read.ok ? { ...read.assertion, rpId, origin } : undefined;
}

/** The evidence as a plain JSON object for an audit record's detail or a JSON column. */
export function evidenceJson(evidence: PasskeyEvidence): Record<string, string> {
  const out: Record<string, string> = {
    credentialId: evidence.credentialId,
    authenticatorData: evidence.authenticatorData,
    clientDataJSON: evidence.clientDataJSON,
    signature: evidence.signature,
    rpId: evidence.rpId,
    origin: evidence.origin,
  };
  if (evidence.userHandle !== undefined) out.userHandle = evidence.userHandle;
  return out;
}
