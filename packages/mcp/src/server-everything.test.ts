import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, type Progress, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './gateway.ts';
import { call, capableClient, connectClient, makeTestGate, refusalOf, textOf } from './testing/gateway-fixture.ts';

// The reference "everything" server from npm (tools, prompts, resources and templates), started with this node over stdio.
const EVERYTHING_BIN = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const upstream = () => ({ name: 'everything', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] });

const POLICY = `
version: 1
rules:
  - id: no-env
    tool: get-env
    verdict: deny
  - id: reads
    tools: [echo, "get-*"]
    verdict: allow
  - id: protocol-demos
    tools: [trigger-sampling-request, trigger-long-running-operation]
    verdict: allow
`;

/** The fields the gateway pins and serves; `execution` (tasks) and `_meta` are not relayed. */
function pinned(tool: Tool): Tool {
  const { execution: _execution, icons: _icons, _meta: _ignored, ...rest } = tool;
  return rest as Tool;
}

describe('the gateway in front of @modelcontextprotocol/server-everything (stdio)', () => {
  let direct: Client;
  let gateway: Gateway;
  let client: Client;
  let gate: ReturnType<typeof makeTestGate>;

  beforeAll(async () => {
    // Declaring what the gateway's client declares (nothing: the gateway declares the same upstream), so both list the same tools.
    direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(new StdioClientTransport({ ...upstream(), stderr: 'ignore' }));
    gate = makeTestGate(POLICY, true);
    gateway = await createGateway({ upstreams: [upstream()], gate, agent: { id: 'mcp-gateway' }, principal: 'user-1' });
    client = await connectClient(gateway);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await direct?.close();
  });

  it('lists exactly the tools policy lets the principal call, identical to the server’s own', async () => {
    const all = (await direct.listTools()).tools;
    const demos = ['echo', 'trigger-sampling-request', 'trigger-long-running-operation'];
    const allowed = all.filter((t) => demos.includes(t.name) || (t.name.startsWith('get-') && t.name !== 'get-env')).map(pinned);
    expect(allowed.length).toBeGreaterThan(3);
    expect((await client.listTools()).tools).toEqual(allowed);
    // Denied (get-env) and unclassified (toggle-*, ...) tools are hidden.
    expect(all.map((t) => t.name)).toEqual(expect.arrayContaining(['get-env', 'toggle-simulated-logging']));
  });

  it('a call works and returns what the server returns; a hidden tool is still refused with its reason', async () => {
    const viaGateway = await call(client, 'get-sum', { a: 2, b: 3 });
    expect(viaGateway).toEqual(await direct.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }));
    expect(textOf(await call(client, 'echo', { message: 'hi' }))).toBe('Echo: hi');
    expect(refusalOf(await call(client, 'get-env', {}))).toMatchObject({ reason: 'policy_deny', toolName: 'get-env' });
    expect(refusalOf(await call(client, 'toggle-simulated-logging', {}))).toMatchObject({ reason: 'unclassified_tool' });
  });

  it('advertises prompts, resources and completions, as the server does', () => {
    expect(client.getServerCapabilities()).toMatchObject({ prompts: { listChanged: true }, resources: { listChanged: true }, completions: {} });
  });

  it('prompts are identical, and prompts/get answers as the server does', async () => {
    expect((await client.listPrompts()).prompts).toEqual((await direct.listPrompts()).prompts);
    const request = { name: 'args-prompt', arguments: { city: 'Paris', state: 'Texas' } };
    expect(await client.getPrompt(request)).toEqual(await direct.getPrompt(request));
    const embedded = { name: 'resource-prompt', arguments: { resourceType: 'Text', resourceId: '2' } };
    const viaGateway = await client.getPrompt(embedded);
    expect(viaGateway.messages.length).toBe((await direct.getPrompt(embedded)).messages.length);
  });

  it('resources and templates are identical, and reads answer as the server does', async () => {
    const resources = (await client.listResources()).resources;
    expect(resources).toEqual((await direct.listResources()).resources);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual((await direct.listResourceTemplates()).resourceTemplates);
    const staticUri = resources.find((r) => r.uri.includes('/static/'))?.uri;
    expect(staticUri).toBeDefined();
    expect(await client.readResource({ uri: staticUri! })).toEqual(await direct.readResource({ uri: staticUri! }));
    // A templated URI (its text carries the time it was made, so compare its shape).
    const dynamic = await client.readResource({ uri: 'demo://resource/dynamic/text/1' });
    expect(dynamic.contents[0]).toMatchObject({ uri: 'demo://resource/dynamic/text/1', mimeType: 'text/plain', text: expect.stringMatching(/^Resource 1: /) });
  });

  it('argument completions answer as the server does', async () => {
    expect(client.getServerCapabilities()?.completions).toBeDefined();
    const prompt = { ref: { type: 'ref/prompt' as const, name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } };
    const completed = await client.complete(prompt);
    expect(completed).toEqual(await direct.complete(prompt));
    expect(completed.completion.values.length).toBeGreaterThan(0);
  });

  it('an upstream’s JSON-RPC error reaches the client as the server sent it: same code, same message', async () => {
    const failure = async (p: Promise<unknown>) => p.then(() => undefined, (error: unknown) => ({ code: (error as { code?: unknown }).code, message: (error as Error).message }));
    const viaGateway = await failure(client.getPrompt({ name: 'args-prompt', arguments: {} }));
    expect(viaGateway).toEqual(await failure(direct.getPrompt({ name: 'args-prompt', arguments: {} })));
    expect(viaGateway?.code).toBe(-32602);
  });

  it('an unknown prompt or resource is a JSON-RPC error, as it would be directly', async () => {
    await expect(client.getPrompt({ name: 'no-such-prompt' })).rejects.toThrow();
    await expect(direct.getPrompt({ name: 'no-such-prompt' })).rejects.toThrow();
    await expect(client.readResource({ uri: 'demo://resource/nope' })).rejects.toThrow();
  });
});

describe('the protocol around tool calls, through the gateway, with server-everything (stdio)', () => {
  let gateway: Gateway;
  let client: Client;

  beforeAll(async () => {
    gateway = await createGateway({ upstreams: [upstream()], gate: makeTestGate(POLICY, true), agent: { id: 'mcp-gateway' }, principal: 'user-1' });
    client = await capableClient(gateway);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.close();
  });

  it('sampling and roots round trips: the server’s requests reach the client and its answers come back', async () => {
    const sampled = await call(client, 'trigger-sampling-request', { prompt: 'ping', maxTokens: 5 });
    expect(textOf(sampled)).toContain('model says Resource trigger-sampling-request context: ping');
    const roots = await call(client, 'get-roots-list', {});
    expect(textOf(roots)).toContain('file:///home/ada/project');
  });

  it('a long-running operation outlives the client’s request timeout on the server’s progress', async () => {
    const seen: Progress[] = [];
    const params = { name: 'trigger-long-running-operation', arguments: { duration: 3, steps: 10 } };
    const result = await client.request({ method: 'tools/call', params }, CallToolResultSchema, { timeout: 1500, resetTimeoutOnProgress: true, onprogress: (p) => seen.push(p) });
    expect(textOf(result)).toContain('completed');
    expect(seen.length).toBeGreaterThanOrEqual(8);
  });
});
