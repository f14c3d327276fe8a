import { ErrorResponse } from '@countersign/core/wire';
import type { z } from 'zod';
import { CountersignClientError } from './client-error.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface HttpOptions {
  baseUrl: string;
  token: string;
  fetch: FetchLike;
  timeoutMs: number;
  retries: number;
  retryDelayMs: number;
  /** Larger answers are refused as `bad_response` without being read into memory. */
  maxResponseBytes: number;
}

/** A JSON answer from the API: the body of a 2xx, or the `{ error }` of any other status. */
export type Answer =
  | { ok: true; status: number; body: unknown }
  | { ok: false; status: number; code: string; message: string; requestStatus?: string | undefined };

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
  /**
   * Whether sending it twice is the same as sending it once. Only idempotent requests
   * are retried: `authorize` consumes an approval, so a lost answer must be settled by
   * reading `callStatus`, never by asking again.
   */
  idempotent: boolean;
  /** Added to the per-attempt timeout (a long-poll's server-side wait). */
  extraTimeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

// Worth another attempt: the server may not have seen the request, or failed transiently.
const RETRYABLE_STATUS = new Set([500, 502, 503, 504]);

/**
 * Sends one API request with the agent's bearer token. Throws `CountersignClientError`
 * for what no outcome can describe (unreachable, timed out, aborted, token refused,
 * rate limited, an answer that is not the API's); returns every other answer.
 */
export async function send(options: HttpOptions, spec: RequestSpec): Promise<Answer> {
  const attempts = spec.idempotent ? 1 + options.retries : 1;
  for (let attempt = 1; ; attempt++) {
    let answer: Answer;
    try {
      answer = await sendOnce(options, spec);
    } catch (error) {
      const retryable = error instanceof CountersignClientError && (error.code === 'network' || error.code === 'timeout');
      if (!retryable || attempt >= attempts) throw error;
      await pause(options.retryDelayMs * 2 ** (attempt - 1), spec.signal);
      continue;
    }
    if (answer.ok || !RETRYABLE_STATUS.has(answer.status) || attempt >= attempts) return answer;
    await pause(options.retryDelayMs * 2 ** (attempt - 1), spec.signal);
  }
}

async function sendOnce(options: HttpOptions, spec: RequestSpec): Promise<Answer> {
  const timeout = AbortSignal.timeout(options.timeoutMs + (spec.extraTimeoutMs ?? 0));
  const signal = spec.signal === undefined ? timeout : AbortSignal.any([spec.signal, timeout]);
  let response: Response;
  let text: string;
  try {
    response = await options.fetch(`${options.baseUrl}${spec.path}`, {
      method: spec.method,
      headers: {
        authorization: `Bearer ${options.token}`,
        accept: 'application/json',
        ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
      signal,
    });
    text = await readLimited(response, options.maxResponseBytes);
  } catch (error) {
    if (error instanceof CountersignClientError) throw error;
    if (spec.signal?.aborted) throw new CountersignClientError('aborted', 'the request was aborted', { cause: error });
    if (timeout.aborted) throw new CountersignClientError('timeout', `no answer from ${options.baseUrl} in time`, { cause: error });
    throw new CountersignClientError('network', `cannot reach ${options.baseUrl}: ${describe(error)}`, { cause: error });
  }
  const body = parseJson(text);
  if (response.ok) {
    if (body === undefined) throw badResponse(response.status, 'the answer is not JSON');
    return { ok: true, status: response.status, body };
  }
  const parsed = ErrorResponse.safeParse(body);
  if (!parsed.success) {
    // A proxy's HTML error page, an empty 502: no API answer, but the status still says what happened.
    if (response.status >= 500) return { ok: false, status: response.status, code: 'server_error', message: `HTTP ${response.status}` };
    throw badResponse(response.status, `HTTP ${response.status} without an API error body`);
  }
  const { code, message, status } = parsed.data.error;
  if (response.status === 401) throw new CountersignClientError('unauthorized', `the agent token was refused (401): ${message}`, { httpStatus: 401, apiCode: code });
  if (response.status === 429) throw new CountersignClientError('rate_limited', message, { httpStatus: 429, apiCode: code });
  return { ok: false, status: response.status, code, message, ...(status === undefined ? {} : { requestStatus: status }) };
}

/** The 2xx body as `schema` says, or a `bad_response`: the client never hands on an answer it could not type. */
export function parseBody<T extends z.ZodType>(schema: T, answer: Answer & { ok: true }): z.output<T> {
  const result = schema.safeParse(answer.body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? 'body' : issue.path.map(String).join('.');
  throw badResponse(answer.status, `unexpected answer shape at ${where}: ${issue?.message ?? 'invalid'}`);
}

/** For answers no outcome of the method describes. */
export function unexpected(answer: Answer & { ok: false }): CountersignClientError {
  const options = { httpStatus: answer.status, apiCode: answer.code };
  if (answer.status >= 500) return new CountersignClientError('server_error', `server error ${answer.status}: ${answer.message}`, options);
  if (answer.status === 403) return new CountersignClientError('forbidden', answer.message, options);
  return new CountersignClientError('bad_request', `${answer.code}: ${answer.message}`, options);
}

function badResponse(status: number, message: string): CountersignClientError {
  return new CountersignClientError('bad_response', message, { httpStatus: status });
}

/** The body as text, refusing one longer than `maxBytes` as soon as it is (a hostile or broken server). */
async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes || response.body === null) {
    await response.body?.cancel();
    if (declared > maxBytes) throw badResponse(response.status, `the answer is larger than ${maxBytes} bytes`);
    return '';
  }
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => {});
      throw badResponse(response.status, `the answer is larger than ${maxBytes} bytes`);
    }
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return error instanceof Error ? `${error.message}${cause}` : String(error);
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CountersignClientError('aborted', 'the request was aborted'));
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(new CountersignClientError('aborted', 'the request was aborted'));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
