import { MemoryAuditLog } from '@countersign/core/audit';
import { Gate, type IntentMatcher } from '@countersign/core/gate';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { createLlmMatcher, createLocalMatcher } from '@countersign/semantic';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from './gateway.ts';
import { toolNaming } from './names.ts';
import { OFFERED_META, TASK_META } from './task-meta.ts';
import { connectClient, refusalOf, textOf } from './testing/gateway-fixture.ts';
import { seedServers } from './testing/seed-servers.ts';
import { type ScriptedChatServer, startScriptedChatServer } from '@countersign/semantic/llm/testing';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const TASK = "Summarize last week's failing tests in auth-service";
// Policy allows both tools: the injected call is structurally clean, so only the intent stage can see the drift.
const POLICY = 'version: 1\nrules:\n  - { id: reads, tool: "*", verdict: allow }\n';

/** A judge model scripted for the seed: the users-table export does not serve a CI-reading task. */
function judge(body: Record<string, unknown>) {
  const data = JSON.parse((body.messages as { content: string }[])[1]!.content) as { task: string; tool: { name: string } };
  const serves = !data.tool.name.includes('export_full_users_table');
  return { content: JSON.stringify({ serves_task: serves, confidence: 0.95, reason: serves ? 'reads CI runs' : 'exports user data' }) };
}

describe('the semantic seed end to end through the MCP gateway', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  async function setup(matcher: (endpoint: string) => IntentMatcher) {
    const model: ScriptedChatServer = await startScriptedChatServer(judge);
    const servers = await seedServers();
    const audit = new MemoryAuditLog();
    const gate = new Gate({
      definitions: new MemoryDefinitionStore(),
      ledger: new MemoryLedger({ audit }),
      audit,
      policy: loadPolicy(POLICY, 'yaml'),
      keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 0x5a))]),
      trustOnFirstUse: true,
      intent: { matcher: matcher(model.baseUrl), serverOf: (name) => toolNaming(['github', 'db-readonly'], true).parse(name)?.upstream },
    });
    const gateway = await createGateway({ upstreams: servers.upstreams, gate, agent: { id: 'mcp-gateway' }, principal: 'user-1' });
    const client = await connectClient(gateway);
    open.push(model, servers, gateway, client);
    return { model, servers, audit, client };
  }

  const callWithTask = async (client: Client, name: string, args: Record<string, unknown>, task?: string) =>
    (await client.callTool({ name, arguments: args, ...(task === undefined ? {} : { _meta: { [TASK_META]: task } }) })) as CallToolResult;

  it('with the LLM matcher (scripted endpoint): list_workflow_runs passes, the injected export_full_users_table is refused intent_mismatch', async () => {
    const { model, servers, audit, client } = await setup((baseUrl) => createLlmMatcher({ baseUrl, model: 'judge', timeoutMs: 5000 }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['github__list_workflow_runs', 'db-readonly__export_full_users_table']));

    const runs = await callWithTask(client, 'github__list_workflow_runs', { repo: 'auth-service', status: 'failure' }, TASK);
    expect(refusalOf(runs)).toBeUndefined();
    expect(textOf(runs)).toBe('3 failing runs in auth-service');

    const injected = await callWithTask(client, 'db-readonly__export_full_users_table', {}, TASK);
    expect(refusalOf(injected)).toMatchObject({ reason: 'intent_mismatch' });
    expect(servers.calls).toEqual(['list_workflow_runs:auth-service:failure']);

    // The judge saw the pinned definition as served upstream (description and parameter descriptions) and the task.
    const asked = JSON.parse((model.requests[0]!.body.messages as { content: string }[])[1]!.content);
    expect(asked).toMatchObject({
      task: TASK,
      tool: { name: 'github__list_workflow_runs', server: 'github', description: expect.stringContaining('CI workflow runs'), parameters: expect.arrayContaining([{ name: 'repo', type: 'string', description: 'Repository name' }]) },
    });
    // Audited with the digest, the matcher, score and decision; never the task text.
    const records = await audit.read({ limit: 1000 });
    const refusal = records.find((r) => r.reason === 'intent_mismatch');
    expect(refusal?.detail).toMatchObject({ intent: { matcher: 'llm:judge', decision: 'mismatch', effect: 'deny' } });
    expect(JSON.stringify(records)).not.toContain('auth-service');
  });

  it('with the local matcher (no network, no model): list_workflow_runs passes, the injected export_full_users_table is refused intent_mismatch', async () => {
    const { servers, audit, client } = await setup(() => createLocalMatcher());
    await client.listTools();
    const runs = await callWithTask(client, 'github__list_workflow_runs', { repo: 'auth-service', status: 'failure' }, TASK);
    expect(refusalOf(runs)).toBeUndefined();
    const injected = await callWithTask(client, 'db-readonly__export_full_users_table', {}, TASK);
    expect(refusalOf(injected)).toMatchObject({ reason: 'intent_mismatch' });
    expect(servers.calls).toEqual(['list_workflow_runs:auth-service:failure']);
    const refusal = (await audit.read({ limit: 1000 })).find((r) => r.reason === 'intent_mismatch');
    expect(refusal?.detail).toMatchObject({ intent: { effect: 'deny' } });
  });

  it('fails closed: a call without a task, a malformed task, or a judge that is down is refused', async () => {
    const { client, servers } = await setup(() => createLlmMatcher({ baseUrl: 'http://127.0.0.1:9/v1', model: 'down', timeoutMs: 1000 }));
    await client.listTools();
    expect(refusalOf(await callWithTask(client, 'github__list_workflow_runs', { repo: 'auth-service' }))).toMatchObject({ reason: 'intent_mismatch' });
    expect(refusalOf(await callWithTask(client, 'github__list_workflow_runs', { repo: 'auth-service' }, TASK))).toMatchObject({ reason: 'intent_mismatch' });
    const malformed = (await client.callTool({ name: 'github__list_workflow_runs', arguments: { repo: 'a' }, _meta: { [TASK_META]: 42 } })) as CallToolResult;
    expect(refusalOf(malformed)).toMatchObject({ reason: 'invalid_meta' });
    expect(servers.calls).toEqual([]);
  });

  it('the accepted offers a runtime names (_meta countersign/offered) reach the matcher with the task: an "ok sure" to an injected offer is refused; a malformed list is refused, never dropped', async () => {
    const OFFER = 'Shall I export the full users table for you?';
    const seen: Array<readonly string[] | undefined> = [];
    // Stands in for the local matcher's rule: a task made only of offers the user accepted does not carry the user's own goal.
    const onlyOffers: IntentMatcher = {
      id: 'offers-matcher',
      async match({ task, offered }) {
        seen.push(offered);
        const userText = (offered ?? []).reduce((text, offer) => text.split(offer).join(' '), task).trim();
        return { decision: userText === '' ? 'mismatch' : 'match', score: 0.5, matcher: 'offers-matcher' };
      },
    };
    const { client, servers } = await setup(() => onlyOffers);
    await client.listTools();
    const call = (meta: Record<string, unknown>) => client.callTool({ name: 'db-readonly__export_full_users_table', arguments: {}, _meta: meta }) as Promise<CallToolResult>;
    expect(refusalOf(await call({ [TASK_META]: OFFER, [OFFERED_META]: [OFFER] }))).toMatchObject({ reason: 'intent_mismatch' });
    expect(seen).toEqual([[OFFER]]);
    for (const bad of ['not a list', [42], ['']]) expect(refusalOf(await call({ [TASK_META]: OFFER, [OFFERED_META]: bad }))).toMatchObject({ reason: 'invalid_meta' });
    expect(seen).toHaveLength(1);
    expect(servers.calls).toEqual([]);
  });
});
