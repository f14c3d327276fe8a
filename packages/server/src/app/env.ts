import type { Identity } from '../auth/identity.ts';

/** Per-request values shared between middleware and handlers. */
export interface AppEnv {
  Variables: {
    /** Set by the authentication middleware of the route. */
    identity: Identity;
    /** Set by the stylesheet route: the one response that may be cached. */
    cacheable: boolean;
    /** This HTTP request's id (x-request-id), set by the request log. */
    requestId: string;
    /** The API error code answered, for the request log. */
    errorCode: string;
  };
}
