import { createServer, type Server } from 'node:http';

/** One tool use the scripted model makes. */
export interface ScriptedToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** A turn of the scripted model: tool uses, or (empty) a final text answer. */
export type ScriptedTurn = readonly ScriptedToolUse[];

/**
 * An Anthropic Messages API on loopback for the real Claude Agent SDK runtime: each
 * `POST /v1/messages` answers the next scripted turn (streamed as the runtime asks),
 * then "done" once the script is spent. Records the `tool_result` blocks it is sent.
 */
export interface ScriptedMessagesServer {
  readonly url: string;
  /** Queues the turns the next requests answer. */
  script(...turns: ScriptedTurn[]): void;
  /** Forgets the scripted turns no request has taken (a turn that ended before its model requests did not take them). */
  dropUnused(): void;
  /** Every tool_result block the runtime sent back, in order. */
  readonly toolResults: Array<{ tool_use_id: string; content: unknown; is_error?: boolean }>;
  /** Every Messages API request body it was sent, as received: what reached the model. */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startScriptedMessagesServer(): Promise<ScriptedMessagesServer> {
  const queue: ScriptedTurn[] = [];
  const toolResults: ScriptedMessagesServer['toolResults'] = [];
  const requests: string[] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error","message":"not found"}}');
        return;
      }
      requests.push(body);
      const request = JSON.parse(body) as { model: string; stream?: boolean; messages: Array<{ content: unknown }> };
      const last = request.messages.at(-1)?.content;
      if (Array.isArray(last)) for (const block of last) if (block?.type === 'tool_result') toolResults.push(block);
      const uses = queue.shift() ?? [];
      n++;
      type Block = { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> } | { type: 'text'; text: string };
      const content: Block[] = uses.length > 0 ? uses.map((u) => ({ type: 'tool_use' as const, ...u })) : [{ type: 'text', text: 'done' }];
      const message = {
        id: `msg_scripted_${n}`,
        type: 'message',
        role: 'assistant',
        model: request.model,
        content,
        stop_reason: uses.length > 0 ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      };
      if (request.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(message));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      event('message_start', { message: { ...message, content: [], stop_reason: null } });
      content.forEach((block, index) => {
        if (block.type === 'text') {
          event('content_block_start', { index, content_block: { type: 'text', text: '' } });
          event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
        } else {
          event('content_block_start', { index, content_block: { ...block, input: {} } });
          event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
        }
        event('content_block_stop', { index });
      });
      event('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 1 } });
      event('message_stop', {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('scripted server has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    script: (...turns) => {
      queue.push(...turns);
    },
    dropUnused: () => {
      queue.length = 0;
    },
    toolResults,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
