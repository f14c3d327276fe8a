// The passkey evidence a decision carries is a ledger record's field, so its shape lives
// here, below passkey/ (which verifies it and re-exports these types).

/** What a browser (or any client) sends: the fields of a WebAuthn assertion, each base64url. */
export interface PasskeyAssertion {
  /** The credential's id (base64url), as registered. */
  credentialId: string;
  authenticatorData: string;
  clientDataJSON: string;
  signature: string;
  userHandle?: string | undefined;
}

/**
 * An assertion the server verified, kept with the decision and in its audit record:
 * enough to verify it again offline against the registered public key. `rpId` and
 * `origin` are the ones it was verified for (the signature covers both).
 */
export interface PasskeyEvidence extends PasskeyAssertion {
  rpId: string;
  origin: string;
}
