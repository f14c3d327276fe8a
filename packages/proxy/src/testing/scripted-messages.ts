import { createServer, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback, sendJson } from './loopback.ts';
import type { ScriptedCall } from './scripted-model.ts';

/** A tool use the scripted model makes: a client tool (`tool_use`) unless told (`server_tool_use`). */
export type ScriptedToolUse = ScriptedCall & { type?: 'tool_use' | 'server_tool_use' };

/** What the model answers to one request: text, tool uses, or both (text first). */
export interface MessagesTurn {
  text?: string;
  toolUses?: ScriptedToolUse[];
  /** Server tool output blocks (`web_search_tool_result`…), after the tool uses; streamed whole in their `content_block_start`. */
  serverResults?: Array<Record<string, unknown>>;
}

export interface ScriptedMessages {
  /** `…/v1`, the base the proxy forwards `/messages` to. */
  readonly baseUrl: string;
  /** The server's root, as an Anthropic client's `baseURL` (the client adds `/v1/messages`). */
  readonly root: string;
  readonly received: Array<{ headers: Record<string, string | string[] | undefined>; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/**
 * An Anthropic Messages API server on loopback that answers from a script, for tests and
 * the bench: `POST /v1/messages`, streaming (SSE with `input_json_delta` fragments) or not.
 */
export async function startScriptedMessages(reply: (body: Record<string, unknown>) => MessagesTurn, options: { record?: boolean } = {}): Promise<ScriptedMessages> {
  const received: ScriptedMessages['received'] = [];
  let counter = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/messages') return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'unknown path' } });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      if (options.record !== false) received.push({ headers: req.headers, body });
      const turn = reply(body);
      const id = `msg_${++counter}`;
      return body.stream === true ? stream(res, id, turn) : json(res, 200, { ...message(id, turn), content: contentOf(turn) });
    });
  });
  server.keepAliveTimeout = 60_000;
  const { port, close } = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    root: `http://127.0.0.1:${port}`,
    received,
    close,
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  sendJson(res, status, body, { 'request-id': 'req_scripted' });
}

function message(id: string, turn: MessagesTurn) {
  const stop = turn.toolUses !== undefined && turn.toolUses.length > 0 ? 'tool_use' : 'end_turn';
  return { id, type: 'message', role: 'assistant', model: 'scripted', content: [] as unknown[], stop_reason: stop, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 10 } };
}

function contentOf(turn: MessagesTurn): unknown[] {
  const content: unknown[] = [];
  if (turn.text !== undefined) content.push({ type: 'text', text: turn.text });
  for (const use of turn.toolUses ?? []) content.push({ type: use.type ?? 'tool_use', id: use.id, name: use.name, input: JSON.parse(use.arguments) });
  content.push(...(turn.serverResults ?? []));
  return content;
}

function stream(res: ServerResponse, id: string, turn: MessagesTurn): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type: string, fields: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`);
  const start = message(id, turn);
  send('message_start', { message: { ...start, stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } });
  let index = 0;
  if (turn.text !== undefined) {
    send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    const at = Math.floor(turn.text.length / 2);
    for (const text of [turn.text.slice(0, at), turn.text.slice(at)]) send('content_block_delta', { index, delta: { type: 'text_delta', text } });
    send('content_block_stop', { index: index++ });
  }
  for (const use of turn.toolUses ?? []) {
    send('content_block_start', { index, content_block: { type: use.type ?? 'tool_use', id: use.id, name: use.name, input: {} } });
    // Argument text in fragments, as models stream it.
    const at = Math.floor(use.arguments.length / 2);
    for (const partial_json of [use.arguments.slice(0, at), use.arguments.slice(at)]) send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    send('content_block_stop', { index: index++ });
  }
  for (const result of turn.serverResults ?? []) {
    send('content_block_start', { index, content_block: result });
    send('content_block_stop', { index: index++ });
  }
  send('message_delta', { delta: { stop_reason: start.stop_reason, stop_sequence: null }, usage: { output_tokens: 10 } });
  send('message_stop', {});
  res.end();
}
