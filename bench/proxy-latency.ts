/**
 * `npm run bench -- proxy`: what the recording proxy adds to a completion. A scripted
 * OpenAI-compatible model on loopback answers 1 KB; each request goes once direct and once
 * through the proxy (interleaved, same client, keep-alive both ways), and the p50/p99 of
 * both are compared. The proxy runs with an embedded gate on the in-memory store. The same
 * is measured for the Anthropic Messages API (`/v1/messages`) against a scripted Messages server.
 */
import { MemoryAuditLog } from '@countersign/core/audit';
import { Gate } from '@countersign/core/gate';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { agentTokens, startProxy } from '@countersign/proxy';
import { type MessagesTurn, type ScriptedTurn, startScriptedMessages, startScriptedModel } from '@countersign/proxy/testing';
import { formatMs, type Ratio } from './report.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

export interface ProxyBenchResult {
  rows: Array<{ section: string; name: string; value: number; unit: string }>;
  ratios: Ratio[];
}

const TOKEN = 'bench-agent-token-0123456789abcdef0123456789';
const RUN = 'bench-run';
const TEXT_1KB = 'x'.repeat(1024);
// About 1 KB of argument text, as a tool call the model makes.
const ARGS_1KB = JSON.stringify({ query: 'y'.repeat(1000) });

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function benchProxy(options: { requests: number; warmup: number }): Promise<ProxyBenchResult> {
  let calls = 0;
  const model = await startScriptedModel(
    (body): ScriptedTurn => (body.model === 'tool' ? { toolCalls: [{ id: `call_${++calls}`, name: 'search', arguments: ARGS_1KB }] } : { text: TEXT_1KB }),
    { record: false },
  );
  const messages = await startScriptedMessages(
    (body): MessagesTurn => (body.model === 'tool' ? { toolUses: [{ id: `toolu_${++calls}`, name: 'search', arguments: ARGS_1KB }] } : { text: TEXT_1KB }),
    { record: false },
  );
  const gate = new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger: new MemoryLedger(),
    audit: new MemoryAuditLog(),
    policy: loadPolicy('version: 1\nrules:\n  - id: search\n    tool: search\n    verdict: allow\n', 'yaml'),
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),
    trustOnFirstUse: true,
  });
  const agent = { id: 'bench-agent' };
  const proxy = await startProxy({ gate, authenticate: agentTokens([{ name: agent.id, token: TOKEN, principal: 'alice' }]), upstream: { baseUrl: model.baseUrl, apiKey: 'sk-bench' },
    anthropic: { baseUrl: messages.baseUrl, apiKey: 'sk-ant-bench', keyHeader: 'x-api-key' },
  });

  // One recorded, executed call whose result every "relay" request carries back (check 5 on each request).
  const port = gate.port(agent);
  const registered = await gate.registerTools([{ name: 'search', description: 'Search.', inputSchema: { type: 'object' } }], agent);
  if (!registered.ok) throw new Error(`bench setup: ${JSON.stringify(registered)}`);
  const [proposed] = await port.propose({ runId: RUN, sessionId: RUN, principal: 'alice', toolCalls: [{ id: 'call_done', name: 'search', arguments: '{}' }] });
  if (proposed?.status !== 'allowed') throw new Error(`bench setup: ${JSON.stringify(proposed)}`);
  const granted = await port.authorize({ proposalId: proposed.proposalId });
  if (granted.status !== 'authorized') throw new Error(`bench setup: ${JSON.stringify(granted)}`);
  const toolResult = { content: [{ type: 'text', text: TEXT_1KB }] };
  await port.complete(granted.grant, { status: 'succeeded', result: toolResult });

  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-countersign-run': RUN };
  const bodies = {
    text: JSON.stringify({ model: 'text', messages: [{ role: 'user', content: 'hello' }] }),
    tool: JSON.stringify({ model: 'tool', messages: [{ role: 'user', content: 'search' }] }),
    relay: JSON.stringify({
      model: 'text',
      messages: [
        { role: 'user', content: 'search' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_done', type: 'function', function: { name: 'search', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_done', content: TEXT_1KB },
      ],
    }),
    stream: JSON.stringify({ model: 'text', stream: true, messages: [{ role: 'user', content: 'hello' }] }),
    messagesText: JSON.stringify({ model: 'text', max_tokens: 1024, messages: [{ role: 'user', content: 'hello' }] }),
    messagesTool: JSON.stringify({ model: 'tool', max_tokens: 1024, messages: [{ role: 'user', content: 'search' }] }),
    messagesToolStream: JSON.stringify({ model: 'tool', max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'search' }] }),
  };

  /** One completion: total time, and for streams the time to the first body bytes (the first token's event). */
  async function once(base: string, body: string, path: string): Promise<{ total: number; first: number }> {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { method: 'POST', headers, body });
    if (!response.ok) throw new Error(`${base}: HTTP ${response.status} ${await response.text()}`);
    const reader = response.body!.getReader();
    let first = Number.NaN;
    for (;;) {
      const { done } = await reader.read();
      if (Number.isNaN(first)) first = performance.now() - started;
      if (done) break;
    }
    return { total: performance.now() - started, first };
  }

  const measure = async (body: string, path = '/chat/completions', directBase = model.baseUrl) => {
    const direct: Array<{ total: number; first: number }> = [];
    const proxied: Array<{ total: number; first: number }> = [];
    for (let i = 0; i < options.warmup; i++) {
      await once(directBase, body, path);
      await once(proxy.baseUrl, body, path);
    }
    for (let i = 0; i < options.requests; i++) {
      // Alternate which goes first, so neither side always pays for the other's garbage collection.
      if (i % 2 === 0) {
        direct.push(await once(directBase, body, path));
        proxied.push(await once(proxy.baseUrl, body, path));
      } else {
        proxied.push(await once(proxy.baseUrl, body, path));
        direct.push(await once(directBase, body, path));
      }
    }
    return { direct, proxied };
  };

  const rows: ProxyBenchResult['rows'] = [];
  const ratios: Ratio[] = [];
  const section = 'LLM proxy (1 KB responses, sequential, keep-alive)';
  const report = (label: string, direct: number[], proxied: number[], target?: number) => {
    const stats = { p50: [percentile(direct, 50), percentile(proxied, 50)], p99: [percentile(direct, 99), percentile(proxied, 99)] } as const;
    for (const p of ['p50', 'p99'] as const) {
      const [d, x] = stats[p];
      console.log(`  ${`${label} ${p}`.padEnd(58)} direct ${formatMs(d).padStart(9)}  proxy ${formatMs(x).padStart(9)}  added ${formatMs(x - d).padStart(9)}`);
      rows.push({ section, name: `${label} ${p} direct`, value: d, unit: 'ms' }, { section, name: `${label} ${p} proxy`, value: x, unit: 'ms' });
      ratios.push({ label: `proxy: ${label}, ${p} added`, value: x - d, kind: 'ms', ...(p === 'p50' && target !== undefined ? { target, atMost: true } : {}) });
    }
  };

  console.log(`\n## ${section}, ${options.requests} requests per path`);
  try {
    const text = await measure(bodies.text);
    report('completion, text', text.direct.map((r) => r.total), text.proxied.map((r) => r.total), 1);
    const tool = await measure(bodies.tool);
    report('completion, 1 tool call recorded (check 2)', tool.direct.map((r) => r.total), tool.proxied.map((r) => r.total));
    const relay = await measure(bodies.relay);
    report('completion, 1 relayed result checked (check 5)', relay.direct.map((r) => r.total), relay.proxied.map((r) => r.total));
    const stream = await measure(bodies.stream);
    report('stream, time to first token', stream.direct.map((r) => r.first), stream.proxied.map((r) => r.first));
    report('stream, time to [DONE]', stream.direct.map((r) => r.total), stream.proxied.map((r) => r.total));
    const messagesText = await measure(bodies.messagesText, '/messages', messages.baseUrl);
    report('messages, text', messagesText.direct.map((r) => r.total), messagesText.proxied.map((r) => r.total));
    const messagesTool = await measure(bodies.messagesTool, '/messages', messages.baseUrl);
    report('messages, 1 tool use recorded (check 2)', messagesTool.direct.map((r) => r.total), messagesTool.proxied.map((r) => r.total));
    const messagesStream = await measure(bodies.messagesToolStream, '/messages', messages.baseUrl);
    report('messages stream, 1 tool use, time to message_stop', messagesStream.direct.map((r) => r.total), messagesStream.proxied.map((r) => r.total));
  } finally {
    await proxy.close();
    await model.close();
    await messages.close();
  }
  return { rows, ratios };
}
