import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import type { AuditEvent, AuditLog } from '../../audit/types.ts';
import { manualClock } from '../../clock.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import type { LedgerStore } from '../../ledger/types.ts';
import { loadPolicy } from '../../policy/load.ts';
import { FIXTURE_POLICY_YAML } from '../../testing/gate-fixture.ts';
import { hmacKey, Keyring } from '../../token/keyring.ts';
import { withOverrides } from '../attacks.test-helper.ts';
import { Gate } from '../gate.ts';
import type { RelayProjection } from './projections.ts';
import { MemoryDefinitionStore } from '../../catalog/memory-definition-store.ts';

const MCP = {
  content: [
    { type: 'text', text: 'a' },
    { type: 'text', text: 'b' },
  ],
  structuredContent: { n: 1 },
};

/** The same relayed result in each projection's form. */
const FORMS: Record<Exclude<RelayProjection, 'error' | 'string'>, string> = {
  mcp_text: 'a\nb',
  mcp_text_concat: 'ab',
  mcp_structured: '{"n":1}',
  mcp_content: JSON.stringify(MCP.content),
  json: JSON.stringify(MCP),
};

let run = 0;

/** A gate whose `read_file` (allowed by policy) returns `result` or throws `error`. */
function gateWith(options: { relayProjections?: RelayProjection[]; result?: unknown; error?: string; ledger?: LedgerStore; audit?: AuditLog } = {}) {
  const audit = options.audit ?? new MemoryAuditLog();
  const ledger = options.ledger ?? new MemoryLedger({ audit: audit instanceof MemoryAuditLog ? audit : undefined });
  const gate = new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger,
    audit,
    policy: loadPolicy(FIXTURE_POLICY_YAML, 'yaml'),
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 1))]),
    clock: manualClock(Date.UTC(2026, 5, 1)),
    relayProjections: options.relayProjections,
    tools: {
      read_file: {
        definition: { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' } },
        execute: () => {
          if (options.error !== undefined) throw new Error(options.error);
          return options.result ?? MCP;
        },
      },
    },
  });
  return { gate, ledger, audit };
}

/** Runs one `read_file` call through the gate (propose + dispatch) in a fresh run. */
async function ran(gate: Gate): Promise<{ runId: string; callId: string }> {
  const runId = `run-${++run}`;
  const proposed = await gate.propose({ runId, sessionId: 's', principal: 'user:1', callId: 'call-1', toolName: 'read_file', arguments: {} });
  if (proposed.status !== 'allowed') throw new Error(`expected allowed, got ${proposed.status}`);
  await gate.dispatch({ proposalId: proposed.proposalId });
  return { runId, callId: 'call-1' };
}

describe('checkRelayed: per-deployment projections', () => {
  it('by default every projection passes', async () => {
    const { gate } = gateWith();
    const call = await ran(gate);
    for (const content of Object.values(FORMS)) {
      expect(await gate.checkRelayed({ runId: call.runId, toolMessages: [{ callId: call.callId, content }] }), content).toEqual({ ok: true, checked: 1 });
    }
  });

  it('a deployment that accepts only some projections refuses the others (result_mismatch)', async () => {
    for (const accepted of Object.keys(FORMS) as Array<keyof typeof FORMS>) {
      const { gate } = gateWith({ relayProjections: [accepted] });
      const call = await ran(gate);
      for (const [name, content] of Object.entries(FORMS)) {
        const outcome = await gate.checkRelayed({ runId: call.runId, toolMessages: [{ callId: call.callId, content }] });
        if (name === accepted) expect(outcome, `${accepted} accepts its own form`).toEqual({ ok: true, checked: 1 });
        else expect(outcome, `${accepted} refuses the ${name} form`).toMatchObject({ ok: false, reason: 'relay_refused', failures: [{ reason: 'result_mismatch' }] });
      }
    }
  });

  it('string results: `string` accepts the text itself, `json` its JSON string form; each alone refuses the other', async () => {
    for (const [accepted, passes, refused] of [
      ['string', 'line one', '"line one"'],
      ['json', '"line one"', 'line one'],
    ] as const) {
      const { gate } = gateWith({ relayProjections: [accepted], result: 'line one' });
      const call = await ran(gate);
      expect(await gate.checkRelayed({ runId: call.runId, toolMessages: [{ callId: call.callId, content: passes }] })).toEqual({ ok: true, checked: 1 });
      expect(await gate.checkRelayed({ runId: call.runId, toolMessages: [{ callId: call.callId, content: refused }] })).toMatchObject({
        failures: [{ reason: 'result_mismatch' }],
      });
    }
  });

  it('failed calls: with `error` the exact error message passes; without it a failed call is not_executed', async () => {
    const withError = gateWith({ error: 'disk full' });
    const failed = await ran(withError.gate);
    expect(await withError.gate.checkRelayed({ runId: failed.runId, toolMessages: [{ callId: failed.callId, content: 'disk full' }] })).toEqual({ ok: true, checked: 1 });
    const without = gateWith({ error: 'disk full', relayProjections: ['mcp_text', 'json', 'string'] });
    const refused = await ran(without.gate);
    expect(await without.gate.checkRelayed({ runId: refused.runId, toolMessages: [{ callId: refused.callId, content: 'disk full' }] })).toMatchObject({
      ok: false,
      reason: 'relay_refused',
      failures: [{ reason: 'not_executed' }],
    });
  });

  it('an unknown projection name is a configuration error', () => {
    expect(() => gateWith({ relayProjections: ['mcp_txt' as RelayProjection] })).toThrow(/unknown projection "mcp_txt"/);
  });

  it('a result recorded without projections (before they existed) is checked by its canonical JSON digest alone', async () => {
    const { gate, ledger } = gateWith({ result: { total: 2 } });
    const call = await ran(gate);
    const proposal = await ledger.findProposalByCall(call.runId, call.callId);
    // What a result recorded before migration 5 reads back as: no projections.
    const legacy = withOverrides(ledger, {
      findProposalByCall: async () => ({ ...proposal!, result: { ...proposal!.result!, projections: undefined } }),
    });
    const old = gateWith({ ledger: legacy, audit: new MemoryAuditLog() });
    expect(await old.gate.checkRelayed({ runId: call.runId, toolMessages: [{ callId: call.callId, content: '{ "total": 2 }' }] })).toEqual({ ok: true, checked: 1 });
    expect(await old.gate.checkRelayed({ runId: call.runId, toolMessages: [{ callId: call.callId, content: '{"total":3}' }] })).toMatchObject({
      failures: [{ reason: 'result_mismatch' }],
    });
  });
});

describe('checkRelayed: outages fail closed', () => {
  it('a ledger outage is store_unavailable; an audit outage still refuses (store_unavailable), never passes', async () => {
    const { gate, ledger } = gateWith();
    const call = await ran(gate);
    const down = withOverrides(ledger, {
      findProposalByCall: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    });
    const outage = gateWith({ ledger: down, audit: new MemoryAuditLog() });
    expect(await outage.gate.checkRelayed({ runId: call.runId, toolMessages: [{ callId: call.callId, content: 'a\nb' }] })).toMatchObject({
      ok: false,
      reason: 'store_unavailable',
    });
    const brokenAudit: AuditLog = Object.assign(new MemoryAuditLog(), {
      append: async (_event: AuditEvent) => {
        throw new Error('disk full');
      },
    });
    const noAudit = gateWith({ ledger, audit: brokenAudit });
    expect(await noAudit.gate.checkRelayed({ runId: call.runId, toolMessages: [{ callId: call.callId, content: 'a\nb' }] })).toEqual({ ok: true, checked: 1 });
    expect(await noAudit.gate.checkRelayed({ runId: call.runId, toolMessages: [{ callId: call.callId, content: 'forged' }] })).toMatchObject({
      ok: false,
      reason: 'store_unavailable',
    });
  });
});

describe('one model response, one propose', () => {
  it('responseRef is kept with every proposal of the response and in each proposal record', async () => {
    const { gate, ledger, audit } = gateWith();
    const port = gate.port({ id: 'agent-r' });
    const outcomes = await port.propose({
      runId: 'run-ref',
      sessionId: 's',
      principal: 'user:1',
      responseRef: 'chatcmpl-123',
      toolCalls: [
        { id: 'c1', name: 'read_file', arguments: {} },
        { id: 'c2', name: 'read_file', arguments: { path: 'x' } },
      ],
    });
    expect(outcomes.map((o) => o.status)).toEqual(['allowed', 'allowed']);
    for (const callId of ['c1', 'c2']) expect((await ledger.findProposalByCall('run-ref', callId))?.responseRef).toBe('chatcmpl-123');
    const records = (await audit.read()).filter((r) => r.type === 'proposal');
    expect(records.map((r) => r.detail)).toEqual([
      { format: 2, agent: 'agent-r', responseRef: 'chatcmpl-123', verdict: 'allow', ruleId: 'reads' },
      { format: 2, agent: 'agent-r', responseRef: 'chatcmpl-123', verdict: 'allow', ruleId: 'reads' },
    ]);
  });
});
