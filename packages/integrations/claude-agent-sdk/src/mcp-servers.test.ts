import { afterEach, describe, expect, it } from 'vitest';
import { claudeHarness, OPS, type Wiring } from './agent.test-helper.ts';
import { BANK_POLICY, BANK_TOOLS, bankServer, type Executions } from './bank.test-helper.ts';

/*
 * Tools of an MCP server configured in the Claude Agent SDK (`mcpServers`, here an
 * in-process SDK MCP server from `createSdkMcpServer`) go through the same hooks as the
 * built-in tools: recorded, held for approval, run once with the ledger's arguments.
 * One live runtime session: each attempt of the model is a new turn of the same session.
 */
for (const wiring of ['in-process', 'client'] as Wiring[]) {
  describe(`MCP servers in the Claude Agent SDK through Countersign (${wiring})`, () => {
    let h: Awaited<ReturnType<typeof claudeHarness>> | undefined;
    afterEach(async () => h?.close());

    it('an MCP tool that needs approval is held, then runs once after the approver decides in Countersign; a replay is already_consumed', async () => {
      h = await claudeHarness(wiring, { policyYaml: BANK_POLICY, toolNames: BANK_TOOLS });
      const executions: Executions = [];
      const transfer = { id: 'toolu_mcp_pay', name: 'mcp__bank__transfer', input: { to: 'alice', amount: 2500 } };
      const s = await h.session({ mcpServers: { bank: bankServer(executions) } });

      const held = await s.turn([[transfer]]);
      expect(executions).toEqual([]);
      expect(held.denials.join()).toContain('countersign:not_approved:approval_pending');
      const proposal = await h.fixture.ledger.findProposalByCall(held.sessionId, transfer.id);
      const request = await h.fixture.ledger.findApprovalRequestByProposal(proposal?.proposalId ?? '');
      expect(request).toMatchObject({ status: 'pending' });
      await h.fixture.gate.approvals.decide(OPS, { requestId: request?.requestId ?? '', decision: 'approve' });

      const ran = await s.turn([[transfer]]);
      expect(ran.sessionId).toBe(held.sessionId);
      expect(ran.denials).toEqual([]);
      expect(executions).toEqual([{ tool: 'mcp__bank__transfer', args: { to: 'alice', amount: 2500 } }]);
      expect(await h.port.callStatus(proposal?.proposalId ?? '')).toMatchObject({ ok: true, call: { state: 'succeeded' } });

      const replay = await s.turn([[transfer]]);
      expect(replay.denials.join()).toContain('countersign:not_approved:already_consumed');
      expect(executions).toHaveLength(1);
    }, 120_000);
  });
}
