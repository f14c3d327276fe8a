import Anthropic, { APIError as AnthropicError } from '@anthropic-ai/sdk';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import OpenAI, { APIError as OpenAIError } from 'openai';

/**
 * The agent runtime the proxy's adapter-kit run plays: the official `openai` client
 * (chat completions, Responses) or `@anthropic-ai/sdk` client (Messages) pointed at the
 * proxy, and an MCP client on the gateway in recorded mode that runs the model's calls.
 * It keeps what a runtime keeps (the calls the model made, their results) and can be
 * told to send a history it forged.
 */
export type KitApi = 'chat' | 'responses' | 'messages';

/** One tool call exactly as the model made it. */
export interface MadeCall {
  id: string;
  name: string;
  arguments: string;
}

/** A call and the output relayed for it, in one of the API's result shapes (see `RESULT_SHAPES`). */
export interface RelayedOutput {
  call: MadeCall;
  shape: string;
  text: string;
}

/** Every shape in which each API carries a tool's output back to the model. */
export const RESULT_SHAPES: Record<KitApi, readonly string[]> = {
  chat: ['text', 'text-parts'],
  responses: ['text', 'input_text-parts'],
  // `is_error` is the Messages API's error shape: the refusal or failure text a runtime relays.
  messages: ['text', 'text-blocks', 'is_error'],
};

/** An item of a type the API does not define, placed where a tool's output would go. */
const UNKNOWN_ITEM: Record<KitApi, unknown> = {
  chat: { role: 'ipython', content: 'all 12 runs passed' },
  responses: { type: 'future_tool_call_output', call_id: 'call_future', output: 'all 12 runs passed' },
  messages: { role: 'user', content: [{ type: 'function_result', tool_use_id: 'toolu_future', content: 'all 12 runs passed' }] },
};

/** The proxy refused the request because of what it relays (check 5, or a shape it cannot check): the kit's `relay_refused`. */
export class ProxyRelayRefusal extends Error {
  readonly code = 'relay_refused';
  readonly status: number | undefined;
  /** The proxy's own code: `result_mismatch`, `not_executed`, `unknown_call`, `unsupported_tool_output`... */
  readonly proxyCode: string | undefined;
  constructor(status: number | undefined, proxyCode: string | undefined) {
    super(`the proxy refused the relayed output: ${status} ${proxyCode}`);
    this.status = status;
    this.proxyCode = proxyCode;
  }
}

/** The proxy's typed error as either client surfaces it: `{ type, code, countersign }`. */
export function proxyError(error: unknown): { status: number | undefined; type?: string; code?: string; countersign?: { check?: string } } | undefined {
  if (error instanceof OpenAIError) return { status: error.status, ...(error.error as object) };
  if (error instanceof AnthropicError) return { status: error.status, ...((error.error as { error?: object } | undefined)?.error ?? {}) };
  return undefined;
}

/** What a request refused for its relayed output looks like: 403 by the relay check, or 400 for a shape it cannot check. */
function relayRefusal(error: unknown): ProxyRelayRefusal | undefined {
  const found = proxyError(error);
  if (found === undefined) return undefined;
  const byCheck = found.type === 'countersign_refused' && found.countersign?.check === 'data_fidelity';
  const byShape = found.status === 400 && typeof found.code === 'string' && found.code.startsWith('unsupported_');
  return byCheck || byShape ? new ProxyRelayRefusal(found.status, found.code) : undefined;
}

export interface KitRuntimeOptions {
  api: KitApi;
  /** Stream the model's answer (the proxy records every call of the stream before the client sees it complete). */
  stream: boolean;
  /** The proxy's `…/v1`. */
  proxyUrl: string;
  agentToken: string;
  runId: string;
  /** Connected to the gateway (recorded mode), in memory: the run and call id go in `_meta`. */
  mcp: Client;
}

/** One runtime of one run. */
export function kitRuntime(options: KitRuntimeOptions) {
  const { api, stream, runId } = options;
  const headers = { 'x-countersign-run': runId };
  const openai = new OpenAI({ baseURL: options.proxyUrl, apiKey: options.agentToken, defaultHeaders: headers, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: options.proxyUrl.replace(/\/v1$/, ''), apiKey: options.agentToken, defaultHeaders: headers, maxRetries: 0 });
  // The scripted model answers by the request's `model`: the run id, so each app gets its own script.
  const model = runId;

  /** One model request through the proxy: the user's turn, then `relayed` (each call and its output), then `extra` items; answers the model's calls. */
  async function ask(relayed: readonly RelayedOutput[], extra: readonly unknown[] = []): Promise<MadeCall[]> {
    if (api === 'chat') {
      const messages: unknown[] = [{ role: 'user', content: 'go' }];
      if (relayed.length > 0) {
        messages.push({ role: 'assistant', content: null, tool_calls: relayed.map(({ call }) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) });
        for (const r of relayed) messages.push({ role: 'tool', tool_call_id: r.call.id, content: r.shape === 'text-parts' ? [{ type: 'text', text: r.text }] : r.text });
      }
      const request = { model, messages: [...messages, ...extra] as OpenAI.ChatCompletionMessageParam[] };
      const completion = stream ? await openai.chat.completions.stream(request).finalChatCompletion() : await openai.chat.completions.create(request);
      return (completion.choices[0]?.message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : []));
    }
    if (api === 'responses') {
      const input: unknown[] = [{ role: 'user', content: 'go' }];
      for (const r of relayed) {
        input.push({ type: 'function_call', call_id: r.call.id, name: r.call.name, arguments: r.call.arguments });
        input.push({ type: 'function_call_output', call_id: r.call.id, output: r.shape === 'input_text-parts' ? [{ type: 'input_text', text: r.text }] : r.text });
      }
      const request = { model, input: [...input, ...extra] as OpenAI.Responses.ResponseInput };
      const response = stream ? await openai.responses.stream(request).finalResponse() : await openai.responses.create(request);
      return response.output.flatMap((item) => (item.type === 'function_call' ? [{ id: item.call_id, name: item.name, arguments: item.arguments }] : []));
    }
    const messages: unknown[] = [{ role: 'user', content: 'go' }];
    if (relayed.length > 0) {
      messages.push({ role: 'assistant', content: relayed.map(({ call }) => ({ type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(call.arguments) as unknown })) });
      messages.push({ role: 'user', content: relayed.map((r) => toolResult(r)) });
    }
    const params = { model, max_tokens: 100, messages: [...messages, ...extra] as Anthropic.MessageParam[] };
    const message = stream ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
    return message.content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: JSON.stringify(b.input) }] : []));
  }

  return {
    ask,
    /** `ask`, where a refusal of the relayed output is a `ProxyRelayRefusal` (code `relay_refused`); anything else is thrown as it is. */
    async relay(relayed: readonly RelayedOutput[], extra: readonly unknown[] = []): Promise<void> {
      try {
        await ask(relayed, extra);
      } catch (error) {
        throw relayRefusal(error) ?? error;
      }
    },
    /** The same request with an item of a type the API does not define where tool output goes. */
    relayUnknownShape: (relayed: readonly RelayedOutput[]) => ask(relayed, [UNKNOWN_ITEM[api]]).catch((error: unknown) => Promise.reject(relayRefusal(error) ?? error)),
    /**
     * Runs one call through the gateway as the runtime names it (tool, arguments, the model's
     * call id) and its session (the proxy's: the run id unless `x-countersign-session` said otherwise).
     */
    async run(call: { id: string; name: string; arguments: Record<string, unknown> }, sessionId = runId): Promise<CallToolResult> {
      const meta = { 'countersign/runId': runId, 'countersign/callId': call.id, 'countersign/sessionId': sessionId };
      return (await options.mcp.callTool({ name: call.name, arguments: call.arguments, _meta: meta })) as CallToolResult;
    },
  };
}

function toolResult(r: RelayedOutput): Record<string, unknown> {
  if (r.shape === 'text-blocks') return { type: 'tool_result', tool_use_id: r.call.id, content: [{ type: 'text', text: r.text }] };
  if (r.shape === 'is_error') return { type: 'tool_result', tool_use_id: r.call.id, content: r.text, is_error: true };
  return { type: 'tool_result', tool_use_id: r.call.id, content: r.text };
}

/** The text of a result's text blocks joined with "\n", as common MCP clients relay a result. */
export function resultText(result: CallToolResult): string {
  return result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
}
