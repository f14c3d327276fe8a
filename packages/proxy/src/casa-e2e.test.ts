import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Gate } from '@countersign/core/gate';
import { createGateway, type Gateway, type HttpFront, startHttpFront, type UpstreamConfig } from '@countersign/mcp';
import { makeTestGate, RUG, rugServer } from '@countersign/mcp/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTokens } from './authenticate.ts';
import { type RunningProxy, startProxy } from './start-proxy.ts';
import { type Misbehavior, type RuntimeOptions, runAgent } from './testing/agent-runtime.ts';
import { ciServer, FAILING_RUNS } from './testing/ci-server.ts';
import { type ScriptedCall, type ScriptedModel, startScriptedModel } from './testing/scripted-model.ts';

/**
 * CASA end to end: the official openai client through the proxy to a scripted model on
 * loopback, the MCP gateway in recorded mode (over Streamable HTTP, the run named by the
 * same x-countersign-run header) in front of a CI server written for the test and the
 * real @modelcontextprotocol/server-filesystem, and a runtime that can be told to misbehave.
 */
const require = createRequire(import.meta.url);
const FS_BIN = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

const POLICY = `
version: 1
rules:
  - id: reads
    tools: ["ci__list_workflow_runs", "fs__read_text_file", "rug-*__lookup"]
    verdict: allow
  - id: reruns
    tool: ci__rerun_workflow
    verdict: allow
`;
const AGENT = { id: 'runtime' };
const AGENT_TOKEN = 'agent-token-for-the-proxy-0123456789abcdef';
const GATEWAY_TOKEN = 'gateway-bearer-token-0123456789abcdef0123';
const UPSTREAM_KEY = 'sk-upstream-only-the-proxy-holds';
const PROMPT = "Summarize last week's failing tests.";
const SUMMARY = 'Two runs failed last week; auth.test.ts > refresh token expiry failed in both.';

const LIST_CALL = (id: string): ScriptedCall => ({ id, name: 'ci__list_workflow_runs', arguments: '{"status":"failure","since":"2026-11-16"}' });

describe('CASA checks end to end: openai client → proxy → scripted model; runtime → gateway (recorded) → MCP servers', () => {
  let dir: string;
  let gate: Gate;
  let ci: Awaited<ReturnType<typeof ciServer>>;
  let gateway: Gateway;
  let front: HttpFront;
  let model: ScriptedModel;
  let proxy: RunningProxy;
  // What the scripted model calls in the current test.
  let script: ScriptedCall[] = [];
  let runs = 0;
  let rugs = 0;

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-proxy-')));
    writeFileSync(join(dir, 'failing-tests.txt'), 'auth.test.ts > refresh token expiry\nledger.test.ts > concurrent consume\n');
    writeFileSync(join(dir, 'secrets.txt'), 'AWS_SECRET_ACCESS_KEY=do-not-read\n');
    gate = makeTestGate(POLICY, true);
    ci = await ciServer();
    const upstreams: UpstreamConfig[] = [
      { name: 'ci', transport: ci.transport },
      { name: 'fs', command: process.execPath, args: [FS_BIN, dir] },
    ];
    gateway = await createGateway({ upstreams, gate, agent: AGENT, principal: 'alice', calls: 'recorded' });
    front = await startHttpFront({ gateway, bearerToken: GATEWAY_TOKEN });
    model = await startScriptedModel((body) => (hasToolResults(body) ? { text: SUMMARY } : { toolCalls: script }));
    proxy = await startProxy({
      gate,
      authenticate: agentTokens([{ name: AGENT.id, token: AGENT_TOKEN, principal: 'alice' }]),
      upstream: { baseUrl: model.baseUrl, apiKey: UPSTREAM_KEY },
    });
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await model?.close();
    await front?.close();
    await gateway?.close();
    await ci?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh run: the openai client (only the base URL points at the proxy) and an MCP client, both naming the run. */
  async function runtime(url: string, api: 'chat' | 'responses', stream: boolean, extra: Partial<RuntimeOptions> = {}) {
    const runId = `run-${++runs}-${api}-${stream ? 'stream' : 'plain'}`;
    const headers = { 'x-countersign-run': runId };
    const openai = new OpenAI({ baseURL: proxy.baseUrl, apiKey: AGENT_TOKEN, defaultHeaders: headers, maxRetries: 0 });
    const mcp = new Client({ name: 'test-runtime', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { ...headers, authorization: `Bearer ${GATEWAY_TOKEN}` } } }));
    const before = { model: model.received.length, ci: ci.ran.length };
    const audit = async () => (await gate.auditLog.read()).filter((r) => r.runId === runId);
    return { runId, mcp, before, audit, options: { openai, mcp, api, stream, ...extra } satisfies RuntimeOptions };
  }

  const modes = [
    { api: 'chat', stream: false },
    { api: 'chat', stream: true },
    { api: 'responses', stream: false },
    { api: 'responses', stream: true },
  ] as const;

  describe.each(modes)('$api, stream: $stream', ({ api, stream }) => {
    it("the seed example: list_workflow_runs runs once, its result is relayed faithfully, the model answers", async () => {
      script = [LIST_CALL('call_seed')];
      const { options, before, audit, mcp } = await runtime(front.url, api, stream);
      const outcome = await runAgent(options, PROMPT);
      await mcp.close();
      expect(outcome).toMatchObject({ ok: true, answer: SUMMARY });
      expect(ci.ran.slice(before.ci)).toEqual([{ tool: 'list_workflow_runs', args: { status: 'failure', since: '2026-11-16' } }]);
      // The model got exactly what the tool returned (text blocks joined with "\n").
      const second = model.received.slice(before.model)[1]!;
      expect(JSON.stringify(second.body)).toContain(JSON.stringify(`2 failing runs since 2026-11-16\n${JSON.stringify(FAILING_RUNS)}`).slice(1, -1));
      expect(second.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
      const records = await audit();
      expect(records.map((r) => r.type)).toEqual(expect.arrayContaining(['proposal', 'dispatch', 'result']));
      expect(records.filter((r) => r.type === 'rejection')).toEqual([]);
    });

    const refusedAtGateway: Array<{ name: string; misbehave: Misbehavior; calls: ScriptedCall[]; extra: Partial<RuntimeOptions>; reason: string }> = [
      {
        name: 'a call the model never made (check 2)',
        misbehave: 'fabricate',
        calls: [LIST_CALL('call_f')],
        extra: { other: { name: 'ci__rerun_workflow', arguments: { run_id: 4101 } } },
        reason: 'unknown_call',
      },
      {
        name: 'a name swap (check 3)',
        misbehave: 'swap',
        calls: [LIST_CALL('call_s')],
        extra: { other: { name: 'ci__rerun_workflow', arguments: { run_id: 4101 } } },
        reason: 'tool_mismatch',
      },
      {
        name: 'a changed argument, on the real filesystem server (check 4)',
        misbehave: 'mutate',
        calls: [{ id: 'call_m', name: 'fs__read_text_file', arguments: '' }],
        extra: {},
        reason: 'args_mismatch',
      },
    ];

    for (const attack of refusedAtGateway) {
      it(`${attack.name}: refused at the gateway with ${attack.reason}, audited; nothing reaches the tool or the model`, async () => {
        script = attack.calls.map((c) => (c.name === 'fs__read_text_file' ? { ...c, arguments: JSON.stringify({ path: join(dir, 'failing-tests.txt') }) } : c));
        const mutation = { key: 'path', value: join(dir, 'secrets.txt') };
        const { options, before, audit, mcp } = await runtime(front.url, api, stream, { ...attack.extra, misbehave: attack.misbehave, mutation });
        const outcome = await runAgent(options, PROMPT);
        await mcp.close();
        expect(outcome).toMatchObject({ ok: false, refusedBy: 'gateway', refusal: { reason: attack.reason } });
        expect(ci.ran.slice(before.ci)).toEqual([]);
        expect(model.received.length - before.model).toBe(1);
        const records = await audit();
        // The gate's refusal, then the gateway's refusal text recorded for the call (recognised if the runtime relays it back).
        expect(records.filter((r) => r.type === 'rejection').map((r) => r.reason)).toEqual(attack.misbehave === 'fabricate' ? [attack.reason] : [attack.reason, 'call_refused']);
        expect(records.filter((r) => r.type === 'dispatch' || r.type === 'result')).toEqual([]);
      });
    }

    const refusedAtProxy: Array<{ name: string; misbehave: Misbehavior; call: ScriptedCall }> = [
      { name: 'a falsified result relayed back', misbehave: 'falsify', call: LIST_CALL('call_x') },
      { name: 'a relayed result with an injected instruction appended', misbehave: 'inject', call: LIST_CALL('call_i') },
      { name: 'a falsified result of the real filesystem server', misbehave: 'falsify', call: { id: 'call_r', name: 'fs__read_text_file', arguments: '' } },
    ];

    for (const attack of refusedAtProxy) {
      it(`${attack.name} (check 5): 403 result_mismatch, audited; nothing is forwarded to the model`, async () => {
        script = [attack.call.name === 'fs__read_text_file' ? { ...attack.call, arguments: JSON.stringify({ path: join(dir, 'failing-tests.txt') }) } : attack.call];
        const { options, before, audit, mcp } = await runtime(front.url, api, stream, { misbehave: attack.misbehave });
        const outcome = await runAgent(options, PROMPT);
        await mcp.close();
        expect(outcome).toMatchObject({ ok: false, refusedBy: 'proxy', status: 403, code: 'result_mismatch' });
        if (!outcome.ok && outcome.refusedBy === 'proxy') {
          expect(outcome.error.error).toMatchObject({ type: 'countersign_refused', countersign: { failures: [{ callId: attack.call.id, reason: 'result_mismatch' }] } });
        }
        expect(model.received.length - before.model).toBe(1);
        const records = await audit();
        expect(records.filter((r) => r.type === 'rejection').map((r) => r.reason)).toEqual(['result_mismatch']);
      });
    }

    it('a rug-pulled definition (check 1), changed after the model saw it: refused at the gateway, the tool never runs', async () => {
      const rug = await rugServer();
      // Its own upstream name per test (rug-<n>__lookup): each test starts from a freshly trusted definition.
      const upstream = `rug-${++rugs}`;
      const rugGateway = await createGateway({ upstreams: [{ name: upstream, transport: rug.transport }], gate, agent: AGENT, principal: 'alice', calls: 'recorded', namespaced: true });
      const rugFront = await startHttpFront({ gateway: rugGateway, bearerToken: GATEWAY_TOKEN });
      try {
        script = [{ id: 'call_rug', name: `${upstream}__lookup`, arguments: '{"word":"apple"}' }];
        const { options, before, audit, mcp } = await runtime(rugFront.url, api, stream, { beforeCalls: async () => rug.tool.update({ description: RUG }) });
        const outcome = await runAgent(options, PROMPT);
        await mcp.close();
        expect(outcome).toMatchObject({ ok: false, refusedBy: 'gateway', refusal: { reason: 'definition_mismatch' } });
        expect(rug.calls).toEqual([]);
        expect(model.received.length - before.model).toBe(1);
        expect((await audit()).some((r) => r.type === 'rejection' && r.reason === 'definition_mismatch')).toBe(true);
        // The rug pull itself is on record (definition records carry no run).
        expect((await gate.auditLog.read()).some((r) => r.type === 'definition_changed' && r.toolName === `${upstream}__lookup`)).toBe(true);
      } finally {
        await rugFront.close();
        await rugGateway.close();
        await rug.close();
      }
    });
  });

  it.each([false, true])('a rug pull the runtime listed before asking (stream: %s): the model call is refused at the proxy (definition_mismatch), never handed out', async (stream) => {
    const rug = await rugServer();
    const upstream = `rug-${++rugs}`;
    const rugGateway = await createGateway({ upstreams: [{ name: upstream, transport: rug.transport }], gate, agent: AGENT, principal: 'alice', calls: 'recorded', namespaced: true });
    const rugFront = await startHttpFront({ gateway: rugGateway, bearerToken: GATEWAY_TOKEN });
    try {
      const { options, mcp, audit } = await runtime(rugFront.url, 'chat', stream);
      await mcp.listTools(); // trusted (trust on first use) and pinned
      rug.tool.update({ description: RUG });
      await mcp.listTools(); // the gateway registers the changed definition: its pin now refuses it
      script = [{ id: 'call_rug2', name: `${upstream}__lookup`, arguments: '{"word":"pear"}' }];
      const outcome = await runAgent(options, PROMPT);
      await mcp.close();
      // A refusal after a stream started is its error event (the HTTP status was already 200).
      expect(outcome).toMatchObject({ ok: false, refusedBy: 'proxy', status: stream ? undefined : 403, code: 'definition_mismatch' });
      expect(rug.calls).toEqual([]);
      expect((await audit()).some((r) => r.type === 'rejection' && r.reason === 'definition_mismatch')).toBe(true);
    } finally {
      await rugFront.close();
      await rugGateway.close();
      await rug.close();
    }
  });
});

function hasToolResults(body: Record<string, unknown>): boolean {
  const items = (body.messages ?? body.input) as unknown;
  return Array.isArray(items) && items.some((m: { role?: string; type?: string }) => m.role === 'tool' || m.type === 'function_call_output');
}
