/**
 * Id of the canonicalization recipe bound inside approval tokens: strict intake as
 * implemented in this folder, RFC 8785 (JCS) text, SHA-256 as lower-case hex.
 * Any change that can alter the canonical bytes or digest of some input needs a new id.
 */
export const RECIPE_ID = 'jcs-sha256-v1';
