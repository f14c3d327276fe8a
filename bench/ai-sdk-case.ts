import { randomBytes } from 'node:crypto';
import type { ArgumentCase } from './arguments.ts';
import type { BenchCase } from './harness.ts';

interface ApprovalFields {
  secret: Uint8Array;
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** The two functions `ai/internal` (ai ≥ 7) exports for `experimental_toolApprovalSecret`. */
interface AiApprovalSignature {
  signToolApproval(fields: ApprovalFields): Promise<string>;
  verifyToolApprovalSignature(fields: ApprovalFields & { signature: string }): Promise<boolean>;
}

export type AiSdkLoad = { ok: true; version: string; api: AiApprovalSignature } | { ok: false; reason: string };

const INSTALL_HINT = 'npm i -D ai@^7.0.173';

/**
 * Loads the AI SDK's own approval-signature check if `ai` is installed. It is optional:
 * a variable specifier keeps TypeScript from requiring the package, and without it the
 * row is reported as skipped.
 */
export async function loadAiSdk(): Promise<AiSdkLoad> {
  const specifier = 'ai/internal';
  let mod: Partial<AiApprovalSignature>;
  try {
    mod = (await import(specifier)) as Partial<AiApprovalSignature>;
  } catch {
    return { ok: false, reason: `package "ai" is not installed (${INSTALL_HINT} to measure its approval-signature check)` };
  }
  if (typeof mod.signToolApproval !== 'function' || typeof mod.verifyToolApprovalSignature !== 'function') {
    return { ok: false, reason: `this "ai" version has no signToolApproval/verifyToolApprovalSignature in ai/internal (${INSTALL_HINT})` };
  }
  const pkgSpecifier = 'ai/package.json';
  const pkg = (await import(pkgSpecifier, { with: { type: 'json' } })) as { default: { version: string } };
  const api = mod as AiApprovalSignature;
  return { ok: true, version: pkg.default.version, api };
}

/**
 * (c) The AI SDK's check of a server-signed tool approval (experimental_toolApprovalSecret):
 * WebCrypto HMAC key import + sorted-key JSON of the input + SHA-256 + HMAC verify, per op.
 */
export async function aiSdkCase(arg: ArgumentCase, sdk: Extract<AiSdkLoad, { ok: true }>): Promise<BenchCase> {
  const fields: ApprovalFields = {
    secret: new Uint8Array(randomBytes(32)),
    approvalId: 'approval-1',
    toolCallId: 'call-1',
    toolName: 'bulk_update',
    input: arg.args,
  };
  const signature = await sdk.api.signToolApproval(fields);
  return {
    name: `(c) ai ${sdk.version} verifyToolApprovalSignature, ${arg.label}`,
    note: 'importKey(raw HMAC) + canonicalJSON(input) + subtle.digest(SHA-256) + subtle.verify(HMAC); binds approvalId, toolCallId, toolName, input only',
    prepare: (ops) => async () => {
      for (let i = 0; i < ops; i++) {
        if (!(await sdk.api.verifyToolApprovalSignature({ ...fields, signature }))) throw new Error('signature rejected');
      }
    },
  };
}
