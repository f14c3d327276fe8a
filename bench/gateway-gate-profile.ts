/**
 * Profiles the gate's share of an MCP gateway `tools/call` (setup excluded), without MCP or HTTP:
 *   node --conditions=countersign-source bench/gateway-gate-profile.ts [ops] [out.cpuprofile]
 * Wired as bench/mcp-gateway-child.ts wires the gateway's gate (memory ledger, a separate
 * memory audit log, trust on first use, one allow rule) with the tool registered as the
 * gateway registers an upstream tool (`registerTools`, so it resolves through the store's
 * registered catalogue). Each op is the gateway's allow path through the in-process port:
 * propose → authorize → complete with an MCP-shaped result. Prints µs per op: wall,
 * process CPU, main-thread CPU, and the garbage collections seen during the loop. With an
 * output path, the last round's CPU profile is written there (see bench/profile-summary.ts).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { MemoryAuditLog } from '@countersign/core/audit';
import { Gate, type GatePort } from '@countersign/core/gate';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';

const ops = Number(process.argv[2] ?? 20_000);
const out = process.argv[3];
const ROUNDS = Number(process.env.ROUNDS ?? 4);

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

const gcEntries: { startTime: number; duration: number }[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcEntries.push({ startTime: entry.startTime, duration: entry.duration });
});
gcObserver.observe({ entryTypes: ['gc'] });

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 50 });
for (let round = 0; round < ROUNDS; round++) {
  const port = await newGatewayGate();
  const profiled = out !== undefined && round === ROUNDS - 1;
  if (profiled) await session.post('Profiler.start');
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const threadBefore = process.threadCpuUsage();
  for (let i = 0; i < ops; i++) await callOnce(port, i);
  const ended = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  const thread = process.threadCpuUsage(threadBefore);
  await new Promise((resolve) => setTimeout(resolve, 100));
  if (profiled) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(out, JSON.stringify(profile));
  }
  const inLoop = gcEntries.filter((e) => e.startTime >= started && e.startTime < ended);
  const gcMs = inLoop.reduce((sum, e) => sum + e.duration, 0);
  console.log(
    `round ${round}: gateway allow path ${(((ended - started) * 1000) / ops).toFixed(2)} µs/op wall, ${((cpu.user + cpu.system) / ops).toFixed(2)} µs/op CPU (main thread ${((thread.user + thread.system) / ops).toFixed(2)}), ${inLoop.length} GCs, ${((gcMs * 1000) / ops).toFixed(2)} µs/op paused${profiled ? ' (profiled)' : ''}`,
  );
}
gcObserver.disconnect();
session.disconnect();
