import { MemoryAuditLog } from '@countersign/core/audit';
import { Gate } from '@countersign/core/gate';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Gateway } from '../gateway.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

/** An embedded gate on memory stores, with the real clock (approval waits use real time). */
export function makeTestGate(policyYaml: string, trustOnFirstUse: boolean): Gate {
  return new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger: new MemoryLedger(),
    audit: new MemoryAuditLog(),
    policy: loadPolicy(policyYaml, 'yaml'),
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 0x5a))]),
    trustOnFirstUse,
  });
}

/** The official SDK client, connected to the gateway as an MCP client would be. */
export async function connectClient(gateway: Gateway): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(serverSide);
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** What `capableClient` declares: sampling, form elicitation and roots, as a desktop app may. */
export const CAPABLE = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };

/**
 * A client that declares sampling, elicitation and roots, and answers them as a desktop
 * app would: the model "says" the prompt back, the user accepts with the name Ada, one root.
 */
export async function capableClient(gateway: Gateway): Promise<Client> {
  const client = new Client({ name: 'capable', version: '1.0.0' }, { capabilities: CAPABLE });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const first = request.params.messages[0]?.content;
    const said = first !== undefined && 'text' in first ? first.text : '?';
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: `model says ${said}` } };
  });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///home/ada/project', name: 'project' }] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

/** A tool call through the client, its result typed as a tools/call result. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The gateway's typed refusal on a result, if it is one. */
export function refusalOf(result: CallToolResult): Record<string, unknown> | undefined {
  const meta = result._meta as { countersign?: Record<string, unknown> } | undefined;
  return result.isError === true ? meta?.countersign : undefined;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** `pay` needs a finance approver's approval (ten minutes to decide). */
export const PAY_POLICY = `
version: 1
rules:
  - id: payments
    tool: pay
    verdict: approve
    approval:
      approvers: { roles: [finance] }
      ttlSeconds: 600
`;
export const FINANCE = { id: 'fiona', roles: ['finance'] };

/** An upstream with one tool, `pay`, that records what it ran; its gateway side is `transport`. */
export async function payServer() {
  const server = new McpServer({ name: 'bank', version: '1.0.0' });
  const ran: unknown[] = [];
  server.registerTool('pay', { inputSchema: { to: z.string(), amount: z.number() } }, async (args) => {
    ran.push(args);
    return { content: [{ type: 'text' as const, text: `paid ${args.amount} to ${args.to}` }] };
  });
  const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { ran, transport: gatewaySide, close: () => server.close() };
}
