import { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { approverOf } from '../../auth/approver-of.ts';
import { requireApprover } from '../../auth/require-identity.ts';
import { ApiError } from '../../errors/api-error.ts';
import { readJsonBody } from '../../http/read-json.ts';
import { validate } from '../../http/validate.ts';
import { decisionChallenge } from '../../passkey/decision-challenge.ts';
import type { PasskeyServices } from '../../passkey/passkey-services.ts';
import { registerPasskey, registrationChallenge, registrationOptions } from '../../passkey/registration.ts';
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
export const RegisterBody = z.object({ label: z.string().max(200), response: z.record(z.string(), z.unknown()) }).strict();

/** How long a browser may take to sign a decision. */
const ASSERTION_TIMEOUT_MS = 120_000;

/**
 * POST /passkey-challenge: what the approver's passkey must sign for one decision (claims
 * rebuilt from the ledger, the challenge, and this approver's credentials), so the page or
 * any client can call `navigator.credentials.get` and send the assertion with the decision.
 * POST /passkeys/registration-options and POST /passkeys: register a passkey (browser only).
 */
export function passkeyApiRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const approverOnly = requireApprover(services);

  routes.post('/passkey-challenge', approverOnly, async (c) => {
    const body = validate(ChallengeBody, await readJsonBody(c, services.bodyLimits));
    const passkeys = enabled(services);
    const rp = relyingParty(passkeys, c.req.url);
    const approver = approverOf(c);
    const edit = body.editedArguments !== undefined;
    const { challenge, claims } = await decisionChallenge(services, approver, body.requestId, edit ? 'edit' : body.decision, body.editedArguments);
    const mine = (await passkeys.store.list(approver.id)).filter((credential) => credential.removedAt === undefined);
    return c.json({
      claims,
      challenge,
      publicKey: {
        challenge,
        rpId: rp.rpId,
        allowCredentials: mine.map((credential) => ({ type: 'public-key', id: credential.credentialId, ...(credential.transports ? { transports: credential.transports } : {}) })),
        userVerification: 'required',
        timeout: ASSERTION_TIMEOUT_MS,
      },
    });
  });

  routes.post('/passkeys/registration-options', approverOnly, async (c) => {
    validate(RegistrationOptionsBody, await readJsonBody(c, services.bodyLimits));
    const passkeys = enabled(services);
    const rp = relyingParty(passkeys, c.req.url);
    const approver = approverOf(c).id;
    const challenge = registrationChallenge(passkeys.registrationKey, approver, services.gate.now());
    return c.json(await registrationOptions(rp, approver, challenge, await passkeys.store.list(approver)));
  });

  routes.post('/passkeys', approverOnly, async (c) => {
    const body = validate(RegisterBody, await readJsonBody(c, services.bodyLimits));
    const passkeys = enabled(services);
    const registered = await registerPasskey({
      store: passkeys.store,
      rp: relyingParty(passkeys, c.req.url),
      key: passkeys.registrationKey,
      approver: approverOf(c).id,
      label: body.label,
      response: body.response,
      now: services.gate.now(),
    });
    if (!registered.ok) throw new ApiError('invalid_request', `passkey not registered: ${registered.message}`);
    const { credentialId, label, createdAt } = registered.credential;
    return c.json({ credentialId, label, createdAt }, 201);
  });

  return routes;
}

function enabled(services: Services): PasskeyServices {
  if (services.passkeys === undefined) throw new ApiError('not_found', 'passkeys are not enabled on this service');
  return services.passkeys;
}

function relyingParty(passkeys: PasskeyServices, requestUrl: string): RelyingParty {
  const found = passkeys.relyingParty(requestUrl);
  if (!found.ok) throw new ApiError('invalid_request', found.message);
  return found.rp;
}
