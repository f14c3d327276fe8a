import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway } from './gateway.ts';
import { call, connectClient, makeTestGate, refusalOf } from './testing/gateway-fixture.ts';

const POLICY = `
version: 1
rules:
  - id: lookups
    tool: "*lookup"
    verdict: allow
  - id: no-secrets
    tool: "*secret"
    verdict: deny
`;

/** A server written for the test: a tool or two, a prompt, its own resources, one URI and one template it shares with its sibling. */
async function upstream(name: string, withPromptsAndResources = true) {
  const server = new McpServer({ name, version: '1.0.0' });
  server.registerTool('lookup', { description: `Look up in ${name}`, inputSchema: { word: z.string() } }, async ({ word }) => ({ content: [{ type: 'text', text: `${name}:${word}` }] }));
  server.registerTool('secret', { description: 'Reveal a secret' }, async () => ({ content: [{ type: 'text', text: 'the secret' }] }));
  if (withPromptsAndResources) {
    server.registerPrompt('greet', { description: `Greeting from ${name}`, argsSchema: { who: completable(z.string(), (value) => [`${name}-${value}`]) } }, ({ who }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `${name} says hello to ${who}` } }],
    }));
    server.registerResource('own', `${name}://only`, { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: `only in ${name}` }] }));
    server.registerResource('shared', 'shared://readme', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: `readme of ${name}` }] }));
    server.registerResource('item', new ResourceTemplate(`${name}://items/{id}`, { list: undefined, complete: { id: (value) => [`${name}${value}1`] } }), {}, async (uri, { id }) => ({
      contents: [{ uri: uri.href, text: `${name} item ${String(id)}` }],
    }));
    server.registerResource('both', new ResourceTemplate('shared://t/{x}', { list: undefined }), {}, async (uri) => ({ contents: [{ uri: uri.href, text: name }] }));
  }
  const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { server, transport: gatewaySide, close: () => server.close() };
}

describe('prompts and resources through the gateway', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  async function setup(names: string[], withPromptsAndResources = true) {
    const servers = await Promise.all(names.map((n) => upstream(n, withPromptsAndResources)));
    const gateway = await createGateway({
      upstreams: servers.map((s, i) => ({ name: names[i]!, transport: s.transport })),
      gate: makeTestGate(POLICY, true),
      agent: { id: 'mcp-gateway' },
      principal: 'user-1',
    });
    const client: Client = await connectClient(gateway);
    open.push(client, gateway, ...servers);
    return { servers, client };
  }

  it('advertises prompts and resources only when an upstream has them', async () => {
    const bare = await setup(['a'], false);
    expect(bare.client.getServerCapabilities()).toEqual({ tools: { listChanged: true } });
    // As from a server without the handler: the SDK's own error, once (the gateway's handlers are registered and refuse).
    const notFound = { code: -32601, message: 'MCP error -32601: Method not found' };
    await expect(bare.client.listPrompts()).rejects.toMatchObject(notFound);
    await expect(bare.client.listResources()).rejects.toMatchObject(notFound);
    await expect(bare.client.setLoggingLevel('debug')).rejects.toMatchObject(notFound);
    await expect(bare.client.complete({ ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: '' } })).rejects.toMatchObject(notFound);
    const full = await setup(['a']);
    expect(full.client.getServerCapabilities()).toMatchObject({ prompts: { listChanged: true }, resources: { listChanged: true } });
  });

  it('one upstream: prompts and resources are served under their own names and URIs', async () => {
    const { client } = await setup(['a']);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
    const got = await client.getPrompt({ name: 'greet', arguments: { who: 'bo' } });
    expect(got.messages[0]?.content).toEqual({ type: 'text', text: 'a says hello to bo' });
    expect((await client.listResources()).resources.map((r) => r.uri).sort()).toEqual(['a://only', 'shared://readme']);
    expect((await client.readResource({ uri: 'shared://readme' })).contents[0]).toMatchObject({ text: 'readme of a' });
    expect((await client.readResource({ uri: 'a://items/9' })).contents[0]).toMatchObject({ text: 'a item 9' });
  });

  it('several upstreams: prompts are namespaced like tools and get goes to the named upstream', async () => {
    const { client } = await setup(['a', 'b']);
    expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['a__greet', 'b__greet']);
    const got = await client.getPrompt({ name: 'b__greet', arguments: { who: 'cy' } });
    expect(got.messages[0]?.content).toEqual({ type: 'text', text: 'b says hello to cy' });
    await expect(client.getPrompt({ name: 'greet' })).rejects.toThrow(/Unknown prompt/);
    await expect(client.getPrompt({ name: 'zz__greet' })).rejects.toThrow(/Unknown prompt/);
  });

  it('several upstreams: URIs are kept, each read goes to the upstream that listed it or whose template matches', async () => {
    const { client } = await setup(['a', 'b']);
    // Reads before any listing route too (the gateway lists on a miss).
    expect((await client.readResource({ uri: 'b://items/3' })).contents[0]).toMatchObject({ text: 'b item 3' });
    expect((await client.listResources()).resources.map((r) => r.uri).sort()).toEqual(['a://only', 'b://only']);
    expect((await client.readResource({ uri: 'a://only' })).contents[0]).toMatchObject({ text: 'only in a' });
    expect((await client.readResource({ uri: 'b://only' })).contents[0]).toMatchObject({ text: 'only in b' });
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['a://items/{id}', 'b://items/{id}']);
  });

  it('a URI or template two upstreams claim is left out and its read refused, never guessed', async () => {
    const { client } = await setup(['a', 'b']);
    await expect(client.readResource({ uri: 'shared://readme' })).rejects.toThrow(/several upstreams \(a, b\)/);
    await expect(client.readResource({ uri: 'shared://t/1' })).rejects.toThrow(/several upstreams/);
    await expect(client.readResource({ uri: 'nobody://x' })).rejects.toThrow(/Resource not found/);
  });

  it('argument completions go to the upstream that owns the prompt or template', async () => {
    const { client } = await setup(['a', 'b']);
    expect(client.getServerCapabilities()?.completions).toEqual({});
    const prompt = await client.complete({ ref: { type: 'ref/prompt', name: 'b__greet' }, argument: { name: 'who', value: 'x' } });
    expect(prompt.completion.values).toEqual(['b-x']);
    const template = await client.complete({ ref: { type: 'ref/resource', uri: 'a://items/{id}' }, argument: { name: 'id', value: '7' } });
    expect(template.completion.values).toEqual(['a71']);
    await expect(client.complete({ ref: { type: 'ref/resource', uri: 'shared://t/{x}' }, argument: { name: 'x', value: '' } })).rejects.toThrow(/No single upstream/);
    await expect(client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: '' } })).rejects.toThrow(/Unknown prompt/);
  });

  it("an upstream's prompts and resources list_changed reach the gateway's clients", async () => {
    const { servers, client } = await setup(['a', 'b']);
    await client.listPrompts();
    const prompts = new Promise<void>((resolve) => client.setNotificationHandler(PromptListChangedNotificationSchema, () => resolve()));
    const resources = new Promise<void>((resolve) => client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()));
    servers[1]!.server.registerPrompt('bye', { description: 'Farewell' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'bye' } }] }));
    servers[0]!.server.registerResource('late', 'a://late', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'late' }] }));
    await Promise.all([prompts, resources]);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('b__bye');
    expect((await client.readResource({ uri: 'a://late' })).contents[0]).toMatchObject({ text: 'late' });
  });
});

describe('tools policy denies whatever the arguments are hidden', () => {
  it('tools/list leaves out denied and unclassified tools; calling one is still refused with its reason', async () => {
    const a = await upstream('a', false);
    const gateway = await createGateway({ upstreams: [{ name: 'a', transport: a.transport }], gate: makeTestGate(POLICY, true), agent: { id: 'g' }, principal: 'user-1' });
    const client = await connectClient(gateway);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['lookup']);
      expect((await gateway.listTools()).map((t) => t.name)).toEqual(['lookup']);
      expect(refusalOf(await call(client, 'secret', {}))).toMatchObject({ reason: 'policy_deny', toolName: 'secret' });
    } finally {
      await client.close();
      await gateway.close();
      await a.close();
    }
  });
});
