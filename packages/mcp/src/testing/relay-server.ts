/**
 * An MCP server written for the relay tests, run as a stdio process (`node relay-server.ts`):
 * each tool exercises one thing the gateway must pass through in one direction or the other
 * (progress, cancellation, sampling, elicitation, roots, logging, resource subscriptions), and
 * one reports the capabilities its client declared. `ask-sampling` and the other asking tools
 * ask whatever the client declared, as a careless or hostile server may.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type LoggingLevel, LoggingLevelSchema, SetLevelRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export const COUNTER_URI = 'test://counter';

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('cancelled'));
    });
  });

export function relayServer(): McpServer {
  const server = new McpServer({ name: 'relay-test', version: '1.0.0' }, { capabilities: { logging: {}, resources: { subscribe: true, listChanged: true } } });
  let cancelled = 0;
  let counter = 0;
  const subscribed = trackSubscriptions(server);
  // The level its client set (none: every message), kept here so a tool can report it.
  let level: LoggingLevel | undefined;
  server.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    level = request.params.level;
    return {};
  });
  const logged = (at: LoggingLevel) => level === undefined || LoggingLevelSchema.options.indexOf(at) >= LoggingLevelSchema.options.indexOf(level);

  server.registerTool(
    'slow',
    { description: 'Works for ms milliseconds, reporting progress every stepMs.', inputSchema: { ms: z.number(), stepMs: z.number() } },
    async ({ ms, stepMs }, extra) => {
      const token = extra._meta?.progressToken;
      const steps = Math.ceil(ms / stepMs);
      for (let step = 1; step <= steps; step++) {
        await sleep(stepMs, extra.signal);
        if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: steps } });
      }
      return text(`done after ${steps} steps${token === undefined ? ' without a progress token' : ''}`);
    },
  );
  server.registerTool('wait', { description: 'Waits until cancelled.', inputSchema: {} }, async (_args, extra) => {
    await sleep(600_000, extra.signal).catch(() => {
      cancelled++;
    });
    return text('cancelled');
  });
  server.registerTool('cancellations', { description: 'How many calls were cancelled.', inputSchema: {} }, async () => text(String(cancelled)));
  server.registerTool('ask-sampling', { description: 'Asks the client to sample.', inputSchema: { prompt: z.string() } }, async ({ prompt }) => {
    const answer = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 10 });
    return text(`sampled: ${answer.content.type === 'text' ? answer.content.text : answer.content.type}`);
  });
  server.registerTool('ask-elicitation', { description: 'Asks the user for a name.', inputSchema: {} }, async () => {
    const answer = await server.server.elicitInput({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    return text(`${answer.action}: ${String(answer.content?.name)}`);
  });
  server.registerTool('ask-roots', { description: 'Lists the client roots.', inputSchema: {} }, async () => {
    const { roots } = await server.server.listRoots();
    return text(roots.map((r) => r.uri).join(','));
  });
  server.registerTool('client-capabilities', { description: 'What the client (the gateway) declared at initialize.', inputSchema: {} }, async () =>
    text(JSON.stringify(server.server.getClientCapabilities() ?? {})),
  );
  server.registerTool('log', { description: 'Logs at info and at error.', inputSchema: {} }, async () => {
    if (logged('info')) await server.sendLoggingMessage({ level: 'info', data: 'an info line' });
    if (logged('error')) await server.sendLoggingMessage({ level: 'error', data: 'an error line' });
    return text('logged');
  });
  server.registerTool('big', { description: 'A text result of `bytes` characters.', inputSchema: { bytes: z.number() } }, async ({ bytes }) => text('x'.repeat(bytes)));
  server.registerTool('log-level', { description: 'The logging level its client set.', inputSchema: {} }, async () => text(level ?? 'none'));
  server.registerTool('subscriptions', { description: 'The URIs its client subscribed to.', inputSchema: {} }, async () => text([...subscribed].join(',')));
  server.registerTool('bump', { description: 'Changes the counter resource.', inputSchema: {} }, async () => {
    counter++;
    if (subscribed.has(COUNTER_URI)) await server.server.sendResourceUpdated({ uri: COUNTER_URI });
    return text(String(counter));
  });
  server.registerTool('crash', { description: 'Exits the server process in the middle of the call.', inputSchema: {} }, async () => {
    process.exit(3);
  });
  server.registerResource('counter', COUNTER_URI, { mimeType: 'text/plain' }, async () => ({ contents: [{ uri: COUNTER_URI, text: String(counter) }] }));
  return server;
}

/** Answers `resources/subscribe` and `unsubscribe`; the URIs subscribed to now. */
export function trackSubscriptions(server: McpServer): ReadonlySet<string> {
  const subscribed = new Set<string>();
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  return subscribed;
}

if (import.meta.main) {
  await relayServer().connect(new StdioServerTransport());
  // On stderr, where a stdio server logs: the gateway's log shows it under the upstream's name.
  process.stderr.write(`relay-test ready (pid ${process.pid})\n`);
}
