import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditLog } from '../audit/types.ts';
import { providerOutputDigest } from '../gate/relay/provider-output.ts';
import type { AuditIfWritten, LedgerStore } from '../ledger/types.ts';
import { makeGateFixture } from './gate-fixture.ts';

export interface ProviderOutputHarness {
  /** A ledger whose audit records go to `audit` (in its transactions when the store holds both). */
  ledger: LedgerStore;
  audit: AuditLog;
  cleanup?: () => Promise<void>;
}

/**
 * A hosted tool the model's provider ran, on a real store: its output is recorded as a digest
 * (`recordProviderOutput`, marking the call run by the provider) and is the only thing that
 * passes the relay check for that call; it never stands for a runtime's result, nor the
 * reverse; authorize still refuses the call. Run by every store's tests.
 */
export function runProviderOutputConformance(name: string, open: () => Promise<ProviderOutputHarness>): void {
  describe(`recordProviderOutput and the relay check of a provider output (${name})`, () => {
    const run = { runId: 'run-out', sessionId: 'session-1', principal: 'user:42' };
    const OUTPUT = { type: 'web_search_tool_result', tool_use_id: 'srv_1', content: [{ type: 'web_search_result', url: 'https://a.example', title: 'A' }] };

    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0)) await c();
    });

    /** `wrap`: what the gate sees of the store's ledger (the store itself, with its audit log, is `f.ledger`'s target). */
    async function recorded(wrap: (ledger: LedgerStore) => LedgerStore = (ledger) => ledger) {
      const h = await open();
      if (h.cleanup) cleanups.push(h.cleanup);
      const f = makeGateFixture({ ledger: wrap(h.ledger), audit: h.audit });
      await f.gate.proposeResponse({
        ...run,
        toolCalls: [
          { id: 'srv_1', name: 'read_file', arguments: { path: '/search' }, executedBy: 'provider' },
          { id: 'call_1', name: 'read_file', arguments: { path: '/etc/motd' } },
        ],
      });
      return f;
    }
    const digest = providerOutputDigest(OUTPUT)!;

    it('records the output once (duplicate after, another digest is result_conflict); only that output, canonically equal, passes; authorize still refuses', async () => {
      const f = await recorded();
      expect(await f.gate.recordProviderOutput({ runId: run.runId, callId: 'srv_1', outputDigest: digest })).toEqual({ ok: true, duplicate: false });
      expect(await f.gate.recordProviderOutput({ runId: run.runId, callId: 'srv_1', outputDigest: digest })).toEqual({ ok: true, duplicate: true });
      expect(await f.gate.recordProviderOutput({ runId: run.runId, callId: 'srv_1', outputDigest: 'a'.repeat(64) })).toMatchObject({ ok: false, reason: 'result_conflict' });
      // Key order does not matter; any other change does.
      const reordered = { content: OUTPUT.content, tool_use_id: 'srv_1', type: 'web_search_tool_result' };
      expect(await f.gate.checkRelayed({ runId: run.runId, toolMessages: [{ callId: 'srv_1', content: reordered, providerOutput: true }] })).toEqual({ ok: true, checked: 1 });
      const edited = { ...OUTPUT, content: [{ ...OUTPUT.content[0], url: 'https://evil.example' }] };
      expect(await f.gate.checkRelayed({ runId: run.runId, toolMessages: [{ callId: 'srv_1', content: edited, providerOutput: true }] })).toMatchObject({
        ok: false,
        failures: [{ callId: 'srv_1', reason: 'result_mismatch' }],
      });
      expect(await f.gate.authorize({ proposalId: (await f.ledger.findProposalByCall(run.runId, 'srv_1'))!.proposalId })).toMatchObject({ status: 'denied', reason: 'provider_executed' });
      const audited = (await f.audit.read()).filter((r) => r.callId === 'srv_1').map((r) => [r.type, r.reason ?? r.detail?.executedBy]);
      expect(audited).toEqual([
        ['proposal', undefined],
        ['dispatch', 'provider'],
        ['result', 'provider'],
        ['rejection', 'result_mismatch'],
        ['rejection', 'provider_executed'],
      ]);
    });

    it("a provider's call without a recorded output is not_executed; a provider output never stands for a runtime's result, nor text for the provider's", async () => {
      const f = await recorded();
      const check = (callId: string, content: unknown, providerOutput?: true) =>
        f.gate.checkRelayed({ runId: run.runId, toolMessages: [{ callId, content, ...(providerOutput === undefined ? {} : { providerOutput }) }] });
      expect(await check('srv_1', OUTPUT, true)).toMatchObject({ failures: [{ reason: 'not_executed' }] });
      await f.gate.recordProviderOutput({ runId: run.runId, callId: 'srv_1', outputDigest: digest });
      expect(await check('srv_1', JSON.stringify(OUTPUT))).toMatchObject({ failures: [{ reason: 'result_mismatch' }] });
      expect(await check('call_1', OUTPUT, true)).toMatchObject({ failures: [{ reason: 'result_mismatch' }] });
    });

    it('the output and its records are one write: a failing result record leaves the call not run, and a failing output write leaves no record', async () => {
      const report = { runId: run.runId, callId: 'srv_1', outputDigest: digest };
      for (const wrap of [withFailingResultRecords, withFailingResultWrites]) {
        const f = await recorded(wrap);
        expect(await f.gate.recordProviderOutput(report)).toMatchObject({ ok: false, reason: 'store_unavailable' });
        const call = await f.ledger.findProposalByCall(run.runId, 'srv_1');
        expect(call?.state).toBe('proposed');
        expect(call?.result).toBeUndefined();
        expect((await f.audit.read()).filter((r) => r.callId === 'srv_1').map((r) => r.type)).toEqual(['proposal']);
        // Nothing half-written stands in the way: the report again, once the store works, records the call run with its output.
        const healthy = makeGateFixture({ ledger: unwrapped(f.ledger), audit: f.audit });
        expect(await healthy.gate.recordProviderOutput(report)).toEqual({ ok: true, duplicate: false });
        expect((await f.audit.read()).filter((r) => r.callId === 'srv_1').map((r) => r.type)).toEqual(['proposal', 'dispatch', 'result']);
      }
    });

    it("refuses a runtime's call, another agent's call, an unknown call and a digest that is not one", async () => {
      const f = await recorded();
      const report = { runId: run.runId, callId: 'srv_1', outputDigest: digest };
      expect(await f.gate.recordProviderOutput({ ...report, callId: 'call_1' })).toMatchObject({ ok: false, reason: 'not_found' });
      expect(await f.gate.recordProviderOutput({ ...report, callId: 'nobody' })).toMatchObject({ ok: false, reason: 'not_found' });
      expect(await f.gate.recordProviderOutput(report, { id: 'another-agent' })).toMatchObject({ ok: false, reason: 'not_found' });
      expect(await f.gate.recordProviderOutput({ ...report, outputDigest: 'not-a-digest' })).toMatchObject({ ok: false, reason: 'invalid_request' });
      expect(await f.gate.callStatus((await f.ledger.findProposalByCall(run.runId, 'call_1'))!.proposalId)).toMatchObject({ call: { state: 'proposed' } });
    });
});
}

const TARGET = Symbol('wrapped ledger');

/** The store's own ledger behind a wrapper of this file. */
function unwrapped(ledger: LedgerStore): LedgerStore {
  return (ledger as LedgerStore & { [TARGET]?: LedgerStore })[TARGET] ?? ledger;
}

/** `ledger` with every method bound to it, and `override` before them (`auditLog` is the store's: the gate still writes in one transaction). */
function wrapped(ledger: LedgerStore, override: (method: string, args: unknown[]) => unknown[]): LedgerStore {
  return new Proxy(ledger, {
    get(target, key) {
      if (key === TARGET) return target;
      const value = Reflect.get(target, key, target);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      return (...args: unknown[]) => value.apply(target, override(key, args));
    },
  });
}

/** An event no audit log accepts (`at` must be finite). */
const INVALID: AuditEvent = { type: 'result', at: Number.NaN };

/** Every ledger write that carries a `result` record fails in its audit part (in the store, inside its transaction). */
function withFailingResultRecords(ledger: LedgerStore): LedgerStore {
  const failing = (events: readonly AuditEvent[]) => (events.some((e) => e.type === 'result') ? [...events, INVALID] : events);
  return wrapped(ledger, (_method, args) => {
    const audit = args.at(-1);
    if (typeof audit === 'function') return [...args.slice(0, -1), (outcome: unknown) => failing(audit(outcome))];
    if (typeof audit === 'object' && audit !== null && 'ifWritten' in audit) return [...args.slice(0, -1), { ifWritten: failing((audit as AuditIfWritten).ifWritten) }];
    return args;
  });
}

/** Every write of a result (the runtime's or the provider's) fails before it reaches the store. */
function withFailingResultWrites(ledger: LedgerStore): LedgerStore {
  return wrapped(ledger, (method, args) => {
    if (method === 'recordResult' || method === 'recordProviderOutput') throw new Error(`store outage at ${method}`);
    return args;
  });
}
