import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { removeWithStepUp, stepUpOf } from '../../api/approver/passkeys.ts';
import { ApiError } from '../../errors/api-error.ts';
import { PASSKEY_SCRIPT } from '../assets/passkey-script.ts';
import { csrfTokenFor, layoutUser, pageApprover, readCheckedForm, requirePageApprover } from '../page-auth.ts';
import { passkeysPage } from '../pages/passkeys-page.ts';

/** The removal form's field passkey.js fills with the step-up assertion (JSON text). */
export const STEP_UP_FIELD = 'stepUp';

function jsonField(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('step_up_invalid', 'step-up assertion refused: not JSON');
  }
}

const NOTICES: Record<string, string> = {
  registered: 'Your passkey was added.',
  removed: 'The passkey was removed. Decisions it signed stay verifiable.',
};

/** GET /passkeys (list, add with JavaScript), POST /passkeys/remove, GET /assets/passkey.js. */
export function passkeyRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const signedIn = requirePageApprover(services);

  routes.get('/assets/passkey.js', (c) => {
    c.set('cacheable', true);
    c.header('Cache-Control', 'public, max-age=300');
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    return c.body(PASSKEY_SCRIPT);
  });

  routes.get('/passkeys', signedIn, async (c) => {
    const identity = pageApprover(c);
    const passkeys = services.passkeys;
    const rp = passkeys?.relyingParty();
    const unavailable =
      passkeys === undefined ? 'Passkeys are not enabled on this service.' : rp?.ok === false ? rp.message : identity.csrfKey === undefined ? 'Sign in with the login form to add a passkey.' : undefined;
    const done = c.req.query('done');
    return c.html(
      passkeysPage({
        user: layoutUser(services, identity),
        credentials: passkeys === undefined ? [] : await passkeys.store.list(identity.approver.id),
        csrfToken: csrfTokenFor(services, identity) ?? '',
        unavailable,
        notice: done === undefined ? undefined : NOTICES[done],
      }),
    );
  });

  // passkey.js fills `nonce` and `stepUp` (an assertion of one of the approver's passkeys
  // over this removal) before the form is sent; without them the removal is refused.
  routes.post('/passkeys/remove', signedIn, async (c) => {
    const identity = pageApprover(c);
    const form = await readCheckedForm(c, services, ['credentialId', 'nonce', STEP_UP_FIELD]);
    if (services.passkeys === undefined) throw new ApiError('not_found', 'passkeys are not enabled on this service');
    // Only the owner's own passkey: anyone else's id reads as not found.
    await removeWithStepUp(services, services.passkeys, identity.approver.id, form.credentialId ?? '', form.nonce ?? '', stepUpOf(jsonField(form[STEP_UP_FIELD])));
    return c.redirect('/passkeys?done=removed', 303);
  });

  return routes;
}
