import { randomUUID } from 'node:crypto';
import { CountersignUnguardedTool } from '@countersign/core/integration';
import { Agent, handoff, Usage, webSearchTool } from '@openai/agents';
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { BILLING_HANDOFF, bankServer, type Executions, FILES_AGENT_TOOL, fileTools, runner, scriptedModel, USER, WIRINGS } from './agents.test-helper.ts';
import { memoryCallIndex } from './call-index.ts';
import { countersign } from './countersign.ts';

/*
 * Tools the runner builds at run time (mcpServers), hosted tools and handoffs: each is
 * guarded or refused with a clear error at run start; none runs unchecked.
 */

/** A model that answers its n-th request with the n-th output. */
function turns(...outputs: unknown[][]): ScriptedModel {
  return new ScriptedModel(outputs.map((output) => modelResponder(() => ({ usage: new Usage(), responseId: `resp_${randomUUID()}`, output: output as never }))));
}


for (const makeWiring of WIRINGS) {
  const wiring = makeWiring();
  afterAll(() => wiring.close());

  describe(`run-time-built tools through the Agents SDK: ${wiring.name}`, () => {
    const guardFor = () => countersign({ port: wiring.port, context: { runId: `agents-run-${randomUUID()}`, sessionId: 'agents-session-1', principal: USER }, index: memoryCallIndex() });

    it('a tool from mcpServers is refused at run start (unguarded_tool): the model is never offered it, it never runs', async () => {
      const cs = guardFor();
      const mcpCalls: Array<{ tool: string; args: unknown }> = [];
      const model = scriptedModel([{ callId: 'call-mcp', name: 'move_money', args: { amount: 1_000_000 } }]);
      const agent = new Agent({ name: 'file-agent', model: cs.model(model), tools: cs.tools(fileTools([])), mcpServers: [bankServer(mcpCalls)] });
      const run = runner.run(agent, 'pay');
      await expect(run).rejects.toBeInstanceOf(CountersignUnguardedTool);
      await expect(run).rejects.toMatchObject({ code: 'unguarded_tool', toolName: 'move_money' });
      expect(mcpCalls).toEqual([]);
    });

    it('a hosted tool is refused when it is wrapped, and an unwrapped one at run start', async () => {
      const cs = guardFor();
      expect(() => cs.tools([webSearchTool()])).toThrow(CountersignUnguardedTool);
      const agent = new Agent({ name: 'file-agent', model: cs.model(scriptedModel([])), tools: [...cs.tools(fileTools([])), webSearchTool()] });
      await expect(runner.run(agent, 'search')).rejects.toMatchObject({ code: 'unguarded_tool', kind: 'hosted_tool' });
    });

    it('an unguarded handoff is refused at run start', async () => {
      const cs = guardFor();
      const billing = new Agent({ name: 'billing', model: cs.model(scriptedModel([])), tools: cs.tools(fileTools([])) });
      const agent = new Agent({ name: 'triage', model: cs.model(scriptedModel([])), tools: cs.tools(fileTools([])), handoffs: [billing] });
      await expect(runner.run(agent, 'refund')).rejects.toMatchObject({ code: 'unguarded_tool', kind: 'handoff', toolName: 'transfer_to_billing' });
    });

    it('a guarded handoff works: the handoff call is recorded and authorized, the sub-agent\'s tools are guarded and run once', async () => {
      const cs = guardFor();
      const executions: Executions = [];
      const billing = new Agent({
        name: 'billing',
        model: cs.model(turns([functionCall('list_dir', { path: '/invoices' }, { callId: 'call-list' })], [assistantMessage('done')])),
        tools: cs.tools(fileTools(executions)),
      });
      const triage = new Agent({
        name: 'triage',
        model: cs.model(scriptedModel([{ callId: 'call-handoff', name: BILLING_HANDOFF.toolName, args: {} }])),
        tools: cs.tools(fileTools(executions)),
        handoffs: [cs.handoff(handoff(billing, { toolDescriptionOverride: BILLING_HANDOFF.toolDescription }))],
      });
      const result = await runner.run(triage, 'refund my invoice');
      expect(result.lastAgent?.name).toBe('billing');
      expect(executions).toEqual([{ tool: 'list_dir', args: { path: '/invoices' } }]);
      expect(cs.refusals).toEqual([]);
      // The handoff call is in the ledger, authorized and completed with the transfer message.
      const status = await wiring.port.checkRelayed({ runId: cs.guard.context.runId, toolMessages: [{ callId: 'call-handoff', content: JSON.stringify({ assistant: 'billing' }) }] });
      expect(status).toEqual({ ok: true, checked: 1 });
    });

    it("an agent used as a tool is guarded: the outer call is recorded, authorized and completed; the inner agent's tools are guarded and run once", async () => {
      const cs = guardFor();
      const executions: Executions = [];
      const files = new Agent({
        name: 'files',
        model: cs.model(turns([functionCall('list_dir', { path: '/invoices' }, { callId: 'call-inner-list' })], [assistantMessage('2 invoices')])),
        tools: cs.tools(fileTools(executions)),
      });
      const triage = new Agent({
        name: 'triage',
        model: cs.model(scriptedModel([{ callId: 'call-ask', name: FILES_AGENT_TOOL.toolName, args: { input: 'list /invoices' } }])),
        tools: [cs.agentTool(files, FILES_AGENT_TOOL)],
      });
      const result = await runner.run(triage, 'how many invoices?');
      expect(result.finalOutput).toBe('done');
      expect(executions).toEqual([{ tool: 'list_dir', args: { path: '/invoices' } }]);
      expect(cs.refusals).toEqual([]);
      // Both calls are in the ledger with their results: the outer one completed with the text the model read.
      const relayed = await wiring.port.checkRelayed({
        runId: cs.guard.context.runId,
        toolMessages: [
          { callId: 'call-ask', content: '2 invoices' },
          { callId: 'call-inner-list', content: JSON.stringify({ ok: true, tool: 'list_dir', path: '/invoices' }) },
        ],
      });
      expect(relayed).toEqual({ ok: true, checked: 2 });
    });

    it("an inner agent's call that policy refuses does not run, although the outer call was authorized", async () => {
      const cs = guardFor();
      const executions: Executions = [];
      const files = new Agent({
        name: 'files',
        model: cs.model(turns([functionCall('delete_file', { path: '/invoices' }, { callId: 'call-inner-delete' })], [assistantMessage('could not')])),
        tools: cs.tools(fileTools(executions)),
      });
      const triage = new Agent({
        name: 'triage',
        model: cs.model(scriptedModel([{ callId: 'call-ask', name: FILES_AGENT_TOOL.toolName, args: { input: 'delete /invoices' } }])),
        tools: [cs.agentTool(files, FILES_AGENT_TOOL)],
      });
      await runner.run(triage, 'clean up');
      expect(executions).toEqual([]);
      expect(cs.refusals).toMatchObject([{ callId: 'call-inner-delete', status: 'denied', reason: 'policy_deny' }]);
    });

    it('an agent used as a tool is refused at setup when its model or tools are not guarded, and unwrapped at run start', async () => {
      const cs = guardFor();
      const executions: Executions = [];
      const rawModel = new Agent({ name: 'files', model: scriptedModel([{ callId: 'c', name: 'read_file', args: { path: '/etc/shadow' } }]), tools: cs.tools(fileTools(executions)) });
      expect(() => cs.agentTool(rawModel, FILES_AGENT_TOOL)).toThrow(CountersignUnguardedTool);
      const rawTools = new Agent({ name: 'files', model: cs.model(scriptedModel([])), tools: fileTools(executions) });
      expect(() => cs.agentTool(rawTools, FILES_AGENT_TOOL)).toThrow(/not wrapped with this cs.tools/);
      const withMcp = new Agent({ name: 'files', model: cs.model(scriptedModel([])), tools: cs.tools(fileTools(executions)), mcpServers: [bankServer(executions)] });
      expect(() => cs.agentTool(withMcp, FILES_AGENT_TOOL)).toThrow(/MCP servers/);
      expect(() => cs.tools([rawModel.asTool(FILES_AGENT_TOOL)])).toThrow(expect.objectContaining({ code: 'unguarded_tool', kind: 'agent_tool' }));
      const triage = new Agent({ name: 'triage', model: cs.model(scriptedModel([])), tools: [rawModel.asTool(FILES_AGENT_TOOL)] });
      await expect(runner.run(triage, 'read it')).rejects.toMatchObject({ code: 'unguarded_tool', toolName: FILES_AGENT_TOOL.toolName });
      expect(executions).toEqual([]);
    });
  });
}
