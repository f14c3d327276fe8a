/**
 * `node --conditions=countersign-source bench/probes/intent-stage.ts`: what the optional intent
 * stage adds to propose + dispatch of an allowed call (memory store), against the same
 * gate without it, measured in the same run. Matchers: an instant stub (the stage's own
 * overhead), an allowlist hit (no matcher), a cache hit, and the LLM matcher against a
 * scripted OpenAI-compatible endpoint on loopback (HTTP + JSON parsing, no model time).
 * Never a test: nothing here fails on a slow number.
 */
import { MemoryAuditLog } from '@countersign/core/audit';
import { Gate, type IntentConfig } from '@countersign/core/gate';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { compileAllowlist, createLlmMatcher, createTurnCache, guardMatcher, type TaskToolMatcher } from '@countersign/semantic';
import { startScriptedChatServer } from '@countersign/semantic/llm/testing';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const TASK = "Summarize last week's failing tests in auth-service";
const N = Number(process.env.INTENT_BENCH_CALLS ?? 2000);
const tools = Object.fromEntries(
  Array.from({ length: 100 }, (_, i) => [
    `tool_${i}`,
    { execute: () => ({ ok: true }), definition: { name: `tool_${i}`, description: `Tool number ${i}`, inputSchema: { type: 'object', properties: { q: { type: 'string', description: 'query' } } } } },
  ]),
);
const instant: TaskToolMatcher = { id: 'stub', match: async () => ({ decision: 'match', score: 1, matcher: 'stub' }) };

async function measure(label: string, intent: IntentConfig | undefined, n: number) {
  const audit = new MemoryAuditLog();
  const gate = new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger: new MemoryLedger({ audit }),
    audit,
    policy: loadPolicy('version: 1\nrules:\n  - { id: all, tool: "*", verdict: allow }\n', 'yaml'),
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 1))]),
    tools,
    intent,
  });
  const times: number[] = [];
  for (let i = 0; i < n + 100; i++) {
    const started = performance.now();
    const proposed = await gate.propose({ runId: 'run', sessionId: 's', principal: 'p', callId: `c${i}`, toolName: `tool_${i % 100}`, arguments: { q: 'x' }, task: TASK });
    if (proposed.status !== 'allowed') throw new Error(`${label}: ${JSON.stringify(proposed)}`);
    await gate.dispatch({ proposalId: proposed.proposalId });
    if (i >= 100) times.push(performance.now() - started); // the first 100: warm-up
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { label, p50: at(0.5), p99: at(0.99) };
}

const judge = await startScriptedChatServer(() => ({ content: '{"serves_task":true,"confidence":0.9,"reason":"ok"}' }));
try {
  const rows = [
    await measure('no intent stage (baseline)', undefined, N),
    await measure('intent: instant stub matcher', { matcher: instant }, N),
    await measure('intent: allowlist hit', { matcher: guardMatcher(instant, { allowlist: compileAllowlist([{ task: 'summarize * failing tests *', tool: 'tool_*' }]) }) }, N),
    await measure('intent: per-turn cache hit', { matcher: guardMatcher(instant, { cache: createTurnCache() }) }, N),
    await measure('intent: LLM matcher, loopback endpoint', { matcher: createLlmMatcher({ baseUrl: judge.baseUrl, model: 'judge', timeoutMs: 5000 }) }, Math.min(N, 500)),
  ];
  const base = rows[0]!;
  console.log(`propose + dispatch of an allowed call, memory store, 100-tool catalogue, ${N} calls (LLM row: ${Math.min(N, 500)})`);
  for (const r of rows) console.log(`${r.label.padEnd(42)} p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms  p50 ×${(r.p50 / base.p50).toFixed(2)} of baseline`);
} finally {
  await judge.close();
}
