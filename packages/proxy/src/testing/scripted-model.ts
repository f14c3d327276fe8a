import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback, sendJson } from './loopback.ts';

/** A tool call the scripted model makes. */
export interface ScriptedCall {
  id: string;
  name: string;
  arguments: string;
}

/** What the model answers to one request: tool calls, or text. */
export type ScriptedTurn = { toolCalls: ScriptedCall[] } | { text: string };

/** A request the model received, as it arrived. */
export interface ReceivedRequest {
  path: string;
  authorization: string | undefined;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface ScriptedModel {
  /** `…/v1`, as an OpenAI client's base URL. */
  readonly baseUrl: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible model on loopback that answers from a script, for tests and the
 * bench: `/v1/chat/completions` and `/v1/responses`, streaming (SSE) or not, plus
 * `GET /v1/models`. `reply` picks the turn from the request (e.g. tool calls first, then
 * text once the request carries tool results).
 */
export async function startScriptedModel(reply: (body: Record<string, unknown>, path: string) => ScriptedTurn, options: { record?: boolean } = {}): Promise<ScriptedModel> {
  const received: ReceivedRequest[] = [];
  let counter = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      if (req.method === 'GET' && path === '/v1/models') return json(res, 200, { object: 'list', data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'test' }] });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        return json(res, 400, { error: { message: 'not JSON', type: 'invalid_request_error', code: null, param: null } });
      }
      if (options.record !== false) received.push({ path, authorization: req.headers.authorization, headers: req.headers, body });
      const turn = reply(body, path);
      const id = ++counter;
      const stream = body.stream === true;
      if (path === '/v1/chat/completions') return stream ? chatStream(res, id, turn) : json(res, 200, chatCompletion(id, turn));
      if (path === '/v1/responses') return stream ? responsesStream(res, id, turn) : json(res, 200, response(id, turn, 'completed'));
      json(res, 404, { error: { message: 'unknown path', type: 'invalid_request_error', code: null, param: null } });
    });
  });
  server.keepAliveTimeout = 60_000;
  const { port, close } = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    close,
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  sendJson(res, status, body, { 'x-request-id': 'req-scripted' });
}

function chatCompletion(id: number, turn: ScriptedTurn) {
  const message =
    'toolCalls' in turn
      ? { role: 'assistant', content: null, tool_calls: turn.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
      : { role: 'assistant', content: turn.text };
  return {
    id: `chatcmpl-${id}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'scripted',
    choices: [{ index: 0, message, logprobs: null, finish_reason: 'toolCalls' in turn ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  };
}

function sse(res: ServerResponse): (data: unknown, event?: string) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return (data, event) => res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/** Halves of a string: argument text arrives in fragments, as real models stream it. */
function halves(text: string): [string, string] {
  const at = Math.floor(text.length / 2);
  return [text.slice(0, at), text.slice(at)];
}

function chatStream(res: ServerResponse, id: number, turn: ScriptedTurn): void {
  const send = sse(res);
  const base = { id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: 1_700_000_000, model: 'scripted' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => send({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  chunk({ role: 'assistant', content: '' });
  if ('toolCalls' in turn) {
    turn.toolCalls.forEach((call, index) => {
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
      for (const part of halves(call.arguments)) chunk({ tool_calls: [{ index, function: { arguments: part } }] });
    });
    chunk({}, 'tool_calls');
  } else {
    for (const part of halves(turn.text)) chunk({ content: part });
    chunk({}, 'stop');
  }
  send('[DONE]');
  res.end();
}

function outputOf(id: number, turn: ScriptedTurn): Array<Record<string, unknown>> {
  if ('toolCalls' in turn) {
    return turn.toolCalls.map((c, i) => ({ type: 'function_call', id: `fc_${id}_${i}`, call_id: c.id, name: c.name, arguments: c.arguments, status: 'completed' }));
  }
  return [{ type: 'message', id: `msg_${id}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] }];
}

function response(id: number, turn: ScriptedTurn, status: 'in_progress' | 'completed') {
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: 1_700_000_000,
    status,
    model: 'scripted',
    output: status === 'completed' ? outputOf(id, turn) : [],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: status === 'completed' ? { input_tokens: 10, output_tokens: 10, total_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } : null,
  };
}

function responsesStream(res: ServerResponse, id: number, turn: ScriptedTurn): void {
  const send = sse(res);
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) => send({ type, sequence_number: sequence++, ...fields }, type);
  event('response.created', { response: response(id, turn, 'in_progress') });
  outputOf(id, turn).forEach((item, output_index) => {
    if (item.type === 'function_call') {
      event('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const delta of halves(String(item.arguments))) event('response.function_call_arguments.delta', { output_index, item_id: item.id, delta });
      event('response.function_call_arguments.done', { output_index, item_id: item.id, arguments: item.arguments });
    } else {
      const text = 'text' in turn ? turn.text : '';
      event('response.output_item.added', { output_index, item: { ...item, content: [], status: 'in_progress' } });
      const part = { output_index, item_id: item.id, content_index: 0 };
      event('response.content_part.added', { ...part, part: { type: 'output_text', text: '', annotations: [] } });
      for (const delta of halves(text)) event('response.output_text.delta', { ...part, delta });
      event('response.output_text.done', { ...part, text });
      event('response.content_part.done', { ...part, part: { type: 'output_text', text, annotations: [] } });
    }
    event('response.output_item.done', { output_index, item });
  });
  event('response.completed', { response: response(id, turn, 'completed') });
  res.end();
}
