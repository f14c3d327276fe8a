import { createServer, type Server } from 'node:http';
import { listenOnLoopback } from './loopback.ts';

/** What the upstream answers, byte for byte: each chunk is written (and flushed) on its own. */
export interface ScriptedAnswer {
  status?: number;
  contentType: string;
  chunks: ReadonlyArray<string | Uint8Array>;
}

export interface ScriptedUpstream {
  /** `…/v1`, as a client's base URL. */
  readonly baseUrl: string;
  /** The parsed body of each request received. */
  readonly received: Array<{ path: string; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** Server-sent events as an upstream writes them: one `event:` line when named, one `data:` line. */
export function sseEvent(data: unknown, event?: string): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/**
 * A model endpoint on loopback that answers exactly the bytes a test scripts (invalid
 * UTF-8, odd event orders, conflicting forms of one call): the upstream an adversarial or
 * buggy provider would be, for the proxy's stream and pass-through tests.
 */
export async function startScriptedUpstream(answer: (body: Record<string, unknown>, path: string) => ScriptedAnswer): Promise<ScriptedUpstream> {
  const received: ScriptedUpstream['received'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      received.push({ path, body });
      const scripted = answer(body, path);
      res.writeHead(scripted.status ?? 200, { 'content-type': scripted.contentType });
      for (const chunk of scripted.chunks) res.write(chunk);
      res.end();
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    close,
  };
}
