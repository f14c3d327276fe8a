import { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { approverOf } from '../../auth/approver-of.ts';
import { requireApprover } from '../../auth/require-identity.ts';
import { ApiError } from '../../errors/api-error.ts';
import { readJsonBody } from '../../http/read-json.ts';
import { validate } from '../../http/validate.ts';
import { passkeyChangeChallengeText, passkeyEnrolClaims, passkeyRemoveClaims, readPasskeyAssertion, type PasskeyAssertion } from '@countersign/core/passkey';
import { assertionOptions } from '../../passkey/assertion-options.ts';
import { decisionChallenge } from '../../passkey/decision-challenge.ts';
import { passkeyChangeError } from '../../passkey/passkey-change-errors.ts';
import type { PasskeyServices } from '../../passkey/passkey-services.ts';
import { isRemovalNonce, registerPasskey, registrationChallenge, registrationOptions, removalNonce } from '../../passkey/registration.ts';
import type { RelyingParty } from '../../passkey/relying-party.ts';

export const ChallengeBody = z
  .object({
    requestId: z.string().min(1).max(200),
    decision: z.enum(['approve', 'deny']),
    editedArguments: z.unknown().optional(),
  })
  .strict()
  .refine((body) => body.decision === 'approve' || body.editedArguments === undefined, {
    message: 'editedArguments only go with approve',
    path: ['editedArguments'],
  });

export const RegistrationOptionsBody = z.object({}).strict();
export const RegisterBody = z
  .object({
    label: z.string().max(200),
    response: z.record(z.string(), z.unknown()),
    /** Required when the approver has a passkey already: its assertion over the enrolment claims `registration-options` returned in `stepUp`. */
    stepUp: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
const CredentialIdField = z.string().min(1).max(1366);
export const RemovalChallengeBody = z.object({ credentialId: CredentialIdField }).strict();
export const RemoveBody = z
  .object({
    credentialId: CredentialIdField,
    /** From `removal-challenge`: bound to this approver and credential, live for five minutes. */
    nonce: z.string().min(1).max(200),
    /** An assertion of one of the approver's active passkeys over the removal claims. */
    stepUp: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/**
 * POST /passkey-challenge: what the approver's passkey must sign for one decision (claims
 * rebuilt from the ledger, the challenge, and this approver's credentials), so the page or
 * any client can call `navigator.credentials.get` and send the assertion with the decision.
 * POST /passkeys/registration-options and POST /passkeys: register a passkey (browser only;
 * a second or later one with a step-up assertion of an existing one).
 * POST /passkeys/removal-challenge and POST /passkeys/remove: remove one, with a step-up.
 */
export function passkeyApiRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const approverOnly = requireApprover(services);

  routes.post('/passkey-challenge', approverOnly, async (c) => {
    const body = validate(ChallengeBody, await readJsonBody(c, services.bodyLimits));
    const passkeys = enabled(services);
    const rp = relyingParty(passkeys);
    const approver = approverOf(c);
    const edit = body.editedArguments !== undefined;
    const { challenge, claims } = await decisionChallenge(services, approver, body.requestId, edit ? 'edit' : body.decision, body.editedArguments);
    const mine = await passkeys.store.list(approver.id);
    if (!mine.some((credential) => credential.removedAt === undefined)) {
      throw new ApiError('passkey_required', 'you have no passkey to sign with: add one on the Passkeys page first');
    }
    return c.json({ claims, challenge, publicKey: assertionOptions(rp, mine, challenge) });
  });

  // Registration options; when the approver has a passkey already, also `stepUp`: what one
  // of them must sign (the enrolment claims of THIS ceremony's challenge) for the new one to count.
  routes.post('/passkeys/registration-options', approverOnly, async (c) => {
    validate(RegistrationOptionsBody, await readJsonBody(c, services.bodyLimits));
    const passkeys = enabled(services);
    const rp = relyingParty(passkeys);
    const approver = approverOf(c).id;
    const challenge = registrationChallenge(passkeys.registrationKey, approver, services.gate.now());
    const existing = await passkeys.store.list(approver);
    const options = await registrationOptions(rp, approver, challenge, existing);
    if (!existing.some((credential) => credential.removedAt === undefined)) return c.json(options);
    const claims = passkeyEnrolClaims(approver, challenge);
    const stepUpChallenge = passkeyChangeChallengeText(claims);
    return c.json({ ...options, stepUp: { claims, challenge: stepUpChallenge, publicKey: assertionOptions(rp, existing, stepUpChallenge) } });
  });

  routes.post('/passkeys', approverOnly, async (c) => {
    const body = validate(RegisterBody, await readJsonBody(c, services.bodyLimits));
    const passkeys = enabled(services);
    const registered = await registerPasskey({
      enrol: (input) => passkeys.enrol(input),
      rp: relyingParty(passkeys),
      key: passkeys.registrationKey,
      approver: approverOf(c).id,
      label: body.label,
      response: body.response,
      stepUp: stepUpOf(body.stepUp),
      now: services.gate.now(),
    });
    if (!registered.ok) throw passkeyChangeError(registered.reason, registered.message);
    const { credentialId, label, createdAt } = registered.credential;
    return c.json({ credentialId, label, createdAt }, 201);
  });

  // Removal: a nonce bound to this approver and credential, and what one of their passkeys must sign.
  routes.post('/passkeys/removal-challenge', approverOnly, async (c) => {
    const body = validate(RemovalChallengeBody, await readJsonBody(c, services.bodyLimits));
    const passkeys = enabled(services);
    const rp = relyingParty(passkeys);
    const approver = approverOf(c).id;
    const mine = await passkeys.store.list(approver);
    if (!mine.some((credential) => credential.credentialId === body.credentialId && credential.removedAt === undefined)) throw new ApiError('not_found', 'no such passkey');
    const nonce = removalNonce(passkeys.registrationKey, approver, body.credentialId, services.gate.now());
    const claims = passkeyRemoveClaims(approver, body.credentialId, nonce);
    const challenge = passkeyChangeChallengeText(claims);
    return c.json({ nonce, claims, challenge, publicKey: assertionOptions(rp, mine, challenge) });
  });

  routes.post('/passkeys/remove', approverOnly, async (c) => {
    const body = validate(RemoveBody, await readJsonBody(c, services.bodyLimits));
    const passkeys = enabled(services);
    const removedAt = await removeWithStepUp(services, passkeys, approverOf(c).id, body.credentialId, body.nonce, stepUpOf(body.stepUp));
    return c.json({ credentialId: body.credentialId, removedAt });
  });

  return routes;
}

/**
 * Removes one of `approver`'s passkeys under core's step-up rule (the page's form and the
 * API both come here): the nonce must be ours, live, for this approver and credential.
 */
export async function removeWithStepUp(
  services: Services,
  passkeys: PasskeyServices,
  approver: string,
  credentialId: string,
  nonce: string,
  stepUp: PasskeyAssertion | undefined,
): Promise<number> {
  const now = services.gate.now();
  if (stepUp !== undefined && !isRemovalNonce(passkeys.registrationKey, approver, credentialId, nonce, now)) {
    throw new ApiError('step_up_invalid', 'the removal challenge is not ours, is for another passkey, or has expired: ask for a new one');
  }
  const removed = await passkeys.remove({ approver, credentialId, nonce, stepUp, now });
  if (!removed.ok) throw passkeyChangeError(removed.reason, removed.message);
  return now;
}

/** A step-up assertion from a request body, read strictly (a malformed one is refused, never ignored). */
export function stepUpOf(value: unknown): PasskeyAssertion | undefined {
  if (value === undefined) return undefined;
  const read = readPasskeyAssertion(value);
  if (!read.ok) throw new ApiError('step_up_invalid', `step-up assertion refused: ${read.message}`);
  return read.assertion;
}

function enabled(services: Services): PasskeyServices {
  if (services.passkeys === undefined) throw new ApiError('not_found', 'passkeys are not enabled on this service');
  return services.passkeys;
}

function relyingParty(passkeys: PasskeyServices): RelyingParty {
  const found = passkeys.relyingParty();
  if (!found.ok) throw new ApiError('invalid_request', found.message);
  return found.rp;
}
