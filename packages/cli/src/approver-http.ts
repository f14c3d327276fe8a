import { cliConfigPath, configuredToken, readCliConfig } from './cli-config.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext } from './command-context.ts';

/** The approver's bearer token comes from the environment, never a flag (flags show in `ps` and shell history). */
export const APPROVER_TOKEN_ENV = 'COUNTERSIGN_APPROVER_TOKEN';

/** The service's address when `--url` is not given: the same variable the example agent reads. */
export const SERVICE_URL_ENV = 'COUNTERSIGN_URL';

/** `--url`, else COUNTERSIGN_URL, else the config file's `url`; none is a usage error (exit 2) that names all three. */
export function serviceUrl(ctx: CommandContext, flag: string | undefined): string {
  const fromEnv = ctx.io.env[SERVICE_URL_ENV];
  const url = flag ?? (fromEnv === undefined || fromEnv === '' ? readCliConfig(ctx.io.env)?.config.url : fromEnv);
  if (url === undefined || url === '') {
    throw new CliError('usage', `the service's URL is needed: pass --url, set ${SERVICE_URL_ENV} (e.g. http://127.0.0.1:8787) or put "url" in ${cliConfigPath(ctx.io.env)}`);
  }
  return url;
}

/** COUNTERSIGN_APPROVER_TOKEN, else the config file's `tokenFile` (or `token`, in a file only its owner reads). */
export function approverToken(ctx: CommandContext): string {
  const fromEnv = ctx.io.env[APPROVER_TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const found = readCliConfig(ctx.io.env);
  const token = found === undefined ? undefined : configuredToken(found);
  if (token === undefined || token === '') throw new CliError('config', `${APPROVER_TOKEN_ENV} must hold your approver API token (or name a "tokenFile" in ${cliConfigPath(ctx.io.env)})`);
  return token;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

export interface ApiErrorBody {
  code: string;
  message: string;
  status?: string;
}

/**
 * API error codes that are an answer about the request itself (exit 1): everything
 * else (401, 403, 429, 5xx, an unknown code) means the token, the service or the
 * command is wrong (exit 2).
 */
const REFUSALS = new Set([
  'not_found',
  'expired',
  'already_decided',
  'duplicate_approver',
  'edit_denied_by_policy',
  'invalid_arguments',
  'not_approved',
  'not_revocable',
  'already_consumed',
]);

/** The API's `{ error }` when the answer is a refusal about the request; throws (exit 2) for anything else that is not a 200. */
export function refusalOf(answer: ApiAnswer, url: string): ApiErrorBody {
  const error = apiError(answer);
  if (error === undefined || !REFUSALS.has(error.code)) {
    throw new CliError('config', `${url} refused the request (HTTP ${answer.status}${error === undefined ? '' : `, ${error.code}: ${error.message}`})`);
  }
  return error;
}

export function apiError(answer: ApiAnswer): ApiErrorBody | undefined {
  const error = (answer.body as { error?: { code?: unknown; message?: unknown; status?: unknown } } | null)?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string') return undefined;
  return { code: error.code, message: error.message, ...(typeof error.status === 'string' ? { status: error.status } : {}) };
}

/** `auditRecorded: false` when the decision took effect but its audit record was not written. */
export function auditFlag(body: unknown): { auditRecorded?: false } {
  return (body as { auditRecorded?: unknown } | null)?.auditRecorded === false ? { auditRecorded: false } : {};
}

/** One call to the approver API with the token from the environment; unreachable, bad URL or no token is a CliError (exit 2). */
export async function approverRequest(ctx: CommandContext, base: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer> {
  const token = approverToken(ctx);
  let url: URL;
  try {
    url = new URL(path, base);
  } catch {
    throw new CliError('usage', `--url is not a URL: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError('usage', '--url must be http:// or https://');
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      redirect: 'error',
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    throw new CliError('io', `cannot reach ${url.origin}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await response.text().catch(() => '');
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: reported by status by the caller.
  }
  return { status: response.status, body: parsed };
}
