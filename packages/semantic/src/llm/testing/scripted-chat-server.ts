import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the scripted endpoint answers one request with. */
export type ScriptedReply =
  /** A chat completion whose message content is this text. */
  | { content: string }
  | { status: number; body: string; location?: string | undefined }
  /** Never answers (a hung model). */
  | { hang: true };

export interface ScriptedChatServer {
  baseUrl: string;
  /** Every request body received, parsed, with its authorization header. */
  requests: { body: Record<string, unknown>; authorization: string | undefined }[];
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible `/chat/completions` endpoint on 127.0.0.1 that answers from a
 * script, for tests of the LLM matcher and extractor (no real model, no network).
 */
export async function startScriptedChatServer(reply: (body: Record<string, unknown>) => ScriptedReply): Promise<ScriptedChatServer> {
  const requests: ScriptedChatServer['requests'] = [];
  const hung = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer(async (req, res) => {
    const body = JSON.parse(await readAll(req)) as Record<string, unknown>;
    requests.push({ body, authorization: req.headers.authorization });
    if (req.url !== '/v1/chat/completions') {
      res.writeHead(404).end('{}');
      return;
    }
    const answer = reply(body);
    if ('hang' in answer) {
      hung.add(res);
      return;
    }
    if ('status' in answer) {
      res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.location === undefined ? {} : { location: answer.location }) }).end(answer.body);
      return;
    }
    const completion = { id: 'chatcmpl-scripted', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: 'stop' }] };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
