import type { Gate } from '@countersign/core/gate';
import type { ChainStatusCache } from '../audit/chain-status-cache.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import type { Sessions } from '../auth/sessions.ts';
import type { Throttles } from '../auth/throttles.ts';
import type { JsonBodyLimits } from '../http/read-json.ts';
import type { PasskeyServices } from '../passkey/passkey-services.ts';
import type { ResolvedTuning } from './options.ts';

/** What every route needs, built once by `createApp`. */
export interface Services {
  gate: Gate;
  authenticator: Authenticator;
  sessions: Sessions;
  tuning: ResolvedTuning;
  /** Failed-login and bad-token limits; in memory, per replica. */
  throttles: Throttles;
  publicOrigin: string | undefined;
  bodyLimits: JsonBodyLimits;
  /** The audit chain's status for audit views, verified at most once per interval. */
  chainStatus: ChainStatusCache;
  /** A refused sign-in (`password`), bad bearer token (`bearer`) or a refusal while locked out (`throttled`): the failed-login counter. */
  countAuthFailure: (kind: 'password' | 'bearer' | 'throttled') => void;
  /** Aborted by `close()`: ends long-polls and event streams. */
  closing: AbortSignal;
  /** Passkey registration and passkey-signed decisions; undefined when the server has no passkey store. */
  passkeys: PasskeyServices | undefined;
}
