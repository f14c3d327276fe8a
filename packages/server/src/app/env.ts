import type { Identity } from '../auth/identity.ts';

/** Per-request values shared between middleware and handlers. */
export interface AppEnv {
  Variables: {
    /** Set by the authentication middleware of the route. */
    identity: Identity;
    /** Set by the stylesheet route: the one response that may be cached. */
    cacheable: boolean;
  };
}
