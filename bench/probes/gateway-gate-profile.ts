/**
 * Profiles the gate's share of an MCP gateway `tools/call` (setup excluded), without MCP or HTTP:
 *   node --conditions=countersign-source bench/probes/gateway-gate-profile.ts [ops] [out.cpuprofile]
 * Wired as bench/mcp-gateway-child.ts wires the gateway's gate (memory ledger, a separate
 * memory audit log, trust on first use, one allow rule) with the tool registered as the
 * gateway registers an upstream tool (`registerTools`, so it resolves through the store's
 * registered catalogue). Each op is the gateway's allow path through the in-process port:
 * propose → authorize → complete with an MCP-shaped result. Prints µs per op: wall,
 * process CPU, main-thread CPU, and the garbage collections seen during the loop. With an
 * output path, the last round's CPU profile is written there (see bench/probes/profile-summary.ts).
 */
import { MemoryAuditLog } from '@countersign/core/audit';
import { Gate, type GatePort } from '@countersign/core/gate';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { profileRounds } from './profile-rounds.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const ops = Number(process.argv[2] ?? 20_000);
const out = process.argv[3];

const TOOL = 'bench__echo';
const POLICY = loadPolicy(`version: 1\nrules:\n  - { id: bench-allow, tool: ${TOOL}, verdict: allow }\n`, 'yaml');
// What the 1.x SDK lists for the bench upstream's echo tool (a zod schema turned into JSON Schema).
const DEFINITION = {
  name: TOOL,
  description: 'Answers with the text it was given.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
    $schema: 'http://json-schema.org/draft-07/schema#',
  },
};

async function newGatewayGate(): Promise<GatePort> {
  const gate = new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger: new MemoryLedger(),
    audit: new MemoryAuditLog(),
    policy: POLICY,
    trustOnFirstUse: true,
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),
  });
  const agent = { id: 'mcp-gateway' };
  const registered = await gate.registerTools([DEFINITION], agent);
  if (!registered.ok) throw new Error(`bench setup: registerTools gave ${registered.reason}`);
  const admitted = await gate.admitTool(TOOL);
  if (!admitted.ok) throw new Error(`bench setup: admitTool gave ${admitted.reason}`);
  return gate.port(agent);
}

async function callOnce(port: GatePort, i: number): Promise<void> {
  const text = `call-${i}`;
  const [proposed] = await port.propose({ runId: 'run-bench', sessionId: 'session-bench', principal: 'bench-user', toolCalls: [{ id: `mcp-${i}`, name: TOOL, arguments: { text } }] });
  if (proposed?.status !== 'allowed') throw new Error(`propose gave ${proposed?.status}`);
  const authorized = await port.authorize({ proposalId: proposed.proposalId });
  if (authorized.status !== 'authorized') throw new Error(`authorize gave ${authorized.status}`);
  const completed = await port.complete(authorized.grant, { status: 'succeeded', result: { content: [{ type: 'text', text }] } });
  if (!completed.ok) throw new Error(`complete gave ${completed.reason}`);
}

await profileRounds({
  what: 'gateway allow path',
  ops,
  rounds: Number(process.env.ROUNDS ?? 4),
  out,
  prepare: async () => {
    const port = await newGatewayGate();
    return async () => {
      for (let i = 0; i < ops; i++) await callOnce(port, i);
    };
  },
});
