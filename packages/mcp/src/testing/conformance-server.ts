/**
 * An MCP server that implements what the official conformance suite's server scenarios ask
 * for (`test_simple_text`, `test_sampling`, `test://static-text`, `test_simple_prompt`, …),
 * served over Streamable HTTP on loopback, one SDK session per client. The conformance test
 * runs the suite against it directly and through the gateway, so a scenario server-everything
 * cannot exercise still shows whether the gateway relays it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageResultSchema, type ElicitRequest, ElicitResultSchema, isInitializeRequest, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { trackSubscriptions } from './relay-server.ts';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';

// A 1×1 PNG and a WAV header with no samples: the scenarios check type and MIME type only.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = Buffer.from('RIFF$\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x80\x3e\0\0\x02\0\x10\0data\0\0\0\0', 'latin1').toString('base64');

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function conformanceMcpServer(): McpServer {
  const server = new McpServer({ name: 'conformance-test-server', version: '1.0.0' }, { capabilities: { logging: {}, resources: { subscribe: true }, completions: {} } });

  server.registerTool('test_simple_text', { description: 'Returns simple text.' }, async () => text('This is a simple text response for testing.'));
  server.registerTool('test_image_content', { description: 'Returns an image.' }, async () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }));
  server.registerTool('test_audio_content', { description: 'Returns audio.' }, async () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }));
  server.registerTool('test_embedded_resource', { description: 'Returns an embedded resource.' }, async () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  }));
  server.registerTool('test_multiple_content_types', { description: 'Returns text, an image and a resource.' }, async () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
    ],
  }));
  server.registerTool('test_tool_with_logging', { description: 'Logs three lines while it runs.' }, async (extra) => {
    for (const line of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: line } });
      await sleep(50);
    }
    return text('Tool with logging executed');
  });
  server.registerTool('test_error_handling', { description: 'Always fails.' }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  }));
  server.registerTool('test_tool_with_progress', { description: 'Reports progress 0, 50, 100.' }, async (extra) => {
    const token = extra._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
      await sleep(50);
    }
    return text('Progress tool executed');
  });
  // Requests to the client go through `extra.sendRequest`: on the call's own response stream, not
  // on the standalone GET stream, which the client may not have opened yet.
  server.registerTool('test_sampling', { description: 'Asks the client to sample.', inputSchema: { prompt: z.string() } }, async ({ prompt }, extra) => {
    const answer = await extra.sendRequest(
      { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 } },
      CreateMessageResultSchema,
    );
    return text(`LLM response: ${answer.content.type === 'text' ? answer.content.text : answer.content.type}`);
  });
  const elicit = async (extra: Extra, message: string, properties: Record<string, unknown>, required: string[] = []) => {
    // Schemas as the suite writes them (legacy `enumNames` too), sent as they are.
    const request = { method: 'elicitation/create', params: { message, requestedSchema: { type: 'object', properties, required } } } as ElicitRequest;
    const answer = await extra.sendRequest(request, ElicitResultSchema);
    return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
  };
  server.registerTool('test_elicitation', { description: 'Asks the user for a name and email.', inputSchema: { message: z.string() } }, async ({ message }, extra) =>
    elicit(extra, message, { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } }, ['username', 'email']),
  );
  server.registerTool('test_elicitation_sep1034_defaults', { description: 'Elicitation with defaults.' }, async (extra) =>
    elicit(extra, 'Defaults', {
      name: { type: 'string', default: 'John Doe' },
      age: { type: 'integer', default: 30 },
      score: { type: 'number', default: 95.5 },
      status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', default: true },
    }),
  );
  server.registerTool('test_elicitation_sep1330_enums', { description: 'Elicitation with every enum form.' }, async (extra) =>
    elicit(extra, 'Enums', {
      untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      titledSingle: {
        type: 'string',
        oneOf: [
          { const: 'value1', title: 'First Option' },
          { const: 'value2', title: 'Second Option' },
        ],
      },
      legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
      untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
      titledMulti: {
        type: 'array',
        items: {
          anyOf: [
            { const: 'value1', title: 'First Choice' },
            { const: 'value2', title: 'Second Choice' },
          ],
        },
      },
    }),
  );

  server.registerResource('static-text', 'test://static-text', { description: 'A text resource.', mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  server.registerResource('static-binary', 'test://static-binary', { description: 'A binary resource.', mimeType: 'image/png' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG }],
  }));
  server.registerResource('watched', 'test://watched-resource', { description: 'A resource to subscribe to.', mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'watched' }],
  }));
  server.registerResource('template', new ResourceTemplate('test://template/{id}/data', { list: undefined }), { description: 'Data by id.', mimeType: 'application/json' }, async (uri, { id }) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }) }],
  }));
  // The suite subscribes and unsubscribes; nothing here changes, so no update is ever sent.
  trackSubscriptions(server);

  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt.' }, async () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    { description: 'A prompt with two arguments.', argsSchema: { arg1: completable(z.string(), (value) => ['paris', 'park', 'party'].filter((v) => v.startsWith(value))), arg2: z.string() } },
    async ({ arg1, arg2 }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }] }),
  );
  server.registerPrompt('test_prompt_with_embedded_resource', { description: 'A prompt embedding a resource.', argsSchema: { resourceUri: z.string() } }, async ({ resourceUri }) => ({
    messages: [
      { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  }));
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image.' }, async () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Serves the conformance server on 127.0.0.1 (a free port) at `/mcp`. */
export async function startConformanceServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (transport === undefined && req.method === 'POST' && isInitializeRequest(body)) {
        const port = (http.address() as AddressInfo).port;
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid): void => {
            sessions.set(sid, created);
          },
          enableDnsRebindingProtection: true,
          allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
        });
        created.onclose = () => {
          if (created.sessionId !== undefined) sessions.delete(created.sessionId);
        };
        await conformanceMcpServer().connect(created);
        transport = created;
      }
      if (transport === undefined) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Invalid or missing session ID' } }));
        return;
      }
      await transport.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const transport of sessions.values()) await transport.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
