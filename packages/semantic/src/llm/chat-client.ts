import { z } from 'zod';

/** Where and how to reach an OpenAI-compatible chat completions endpoint. */
export interface ChatEndpoint {
  /** E.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  /** Sent as a bearer token when given (read it from the environment, never a file). */
  apiKey?: string | undefined;
  /** Whole-request budget in milliseconds; past it the answer is a failure (callers fail closed). */
  timeoutMs: number;
  /**
   * How structured output is asked for: `json_schema` (OpenAI structured outputs, the
   * default), `json_object` (JSON mode), or `none` (the prompt alone asks for JSON).
   */
  responseFormat?: 'json_schema' | 'json_object' | 'none' | undefined;
  /** Largest reply body read, in bytes. Default 256 KiB. */
  maxResponseBytes?: number | undefined;
  /** Injected for tests and custom transports; default the global fetch. */
  fetch?: typeof fetch | undefined;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export type ChatFailure = 'timeout' | 'aborted' | 'http_error' | 'network_error' | 'invalid_response' | 'invalid_output';

export type ChatResult<T> = { ok: true; value: T } | { ok: false; reason: ChatFailure; message: string };

const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024;

/** The part of a chat completions reply we read; anything else in it is ignored. */
const Completion = z.object({
  choices: z
    .array(z.object({ message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() }) }))
    .min(1),
});

/** Checks the endpoint settings once, when a matcher or extractor is created. */
export function checkEndpoint(endpoint: ChatEndpoint): void {
  let url: URL;
  try {
    url = new URL(endpoint.baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not a URL: ${JSON.stringify(endpoint.baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('baseUrl must be http(s)');
  if (typeof endpoint.model !== 'string' || endpoint.model === '') throw new TypeError('model must be a non-empty string');
  if (!Number.isFinite(endpoint.timeoutMs) || endpoint.timeoutMs <= 0) throw new TypeError('timeoutMs must be a positive number');
}

/**
 * One chat completion whose reply must be a JSON object matching `schema`. Every failure
 * (timeout, abort, HTTP error, a reply that is not JSON or not of the schema, a refusal)
 * is a typed `{ ok: false }`, never a throw, so callers can fail closed.
 */
export async function completeJson<T>(
  endpoint: ChatEndpoint,
  messages: readonly ChatMessage[],
  output: { name: string; schema: z.ZodType<T>; jsonSchema: Record<string, unknown> },
  signal?: AbortSignal,
): Promise<ChatResult<T>> {
  const timeout = AbortSignal.timeout(endpoint.timeoutMs);
  const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
  const body: Record<string, unknown> = { model: endpoint.model, messages, temperature: 0 };
  const format = endpoint.responseFormat ?? 'json_schema';
  if (format === 'json_schema') body.response_format = { type: 'json_schema', json_schema: { name: output.name, strict: true, schema: output.jsonSchema } };
  if (format === 'json_object') body.response_format = { type: 'json_object' };
  let text: string;
  try {
    const response = await (endpoint.fetch ?? fetch)(`${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: combined,
      // The endpoint is configured; a redirect elsewhere (with the API key) is a failure, not followed.
      redirect: 'error',
    });
    text = await readBounded(response, endpoint.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    if (!response.ok) return { ok: false, reason: 'http_error', message: `endpoint answered HTTP ${response.status}` };
  } catch (error) {
    if (timeout.aborted) return { ok: false, reason: 'timeout', message: `no answer within ${endpoint.timeoutMs} ms` };
    if (signal?.aborted) return { ok: false, reason: 'aborted', message: 'aborted by the caller' };
    return { ok: false, reason: 'network_error', message: error instanceof Error ? error.message : String(error) };
  }
  const completion = Completion.safeParse(safeJson(text));
  if (!completion.success) return { ok: false, reason: 'invalid_response', message: 'not a chat completions reply' };
  const message = completion.data.choices[0]!.message;
  if (typeof message.content !== 'string' || message.content === '') {
    return { ok: false, reason: 'invalid_output', message: message.refusal ? 'the model refused' : 'the reply has no content' };
  }
  const parsed = output.schema.safeParse(safeJson(unfenced(message.content)));
  if (!parsed.success) return { ok: false, reason: 'invalid_output', message: 'the reply is not JSON of the expected shape' };
  return { ok: true, value: parsed.data };
}

/** The body as text, refused past `max` bytes (a hostile endpoint cannot exhaust memory). */
async function readBounded(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new Error(`reply larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Endpoints without structured output often wrap JSON in one markdown fence; only a whole-reply fence is taken off. */
function unfenced(content: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(content);
  return fenced === null ? content : fenced[1]!;
}
