import { type AdapterKitApp, type AdapterKitCall, describeAdapterAttacks } from '@countersign/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { claudeHarness, OPS, type Wiring } from './agent.test-helper.ts';
import { allowEverything, BANK_POLICY, BANK_TOOLS, bankServer, type Executions } from './bank.test-helper.ts';
import type { ScriptedToolUse } from './testing/scripted-messages-server.ts';

/*
 * The adapter attack kit through the real Claude Agent SDK runtime (its platform
 * package from the npm registry) against a scripted Messages API on loopback: the
 * tools are an in-process SDK MCP server's, guarded by the PreToolUse/PostToolUse
 * hooks, on the in-process gate and over @countersign/client.
 *
 * "Resuming" is what the runtime does: the SDK session is resumed (`resume`) and the
 * model makes the call again (same tool-use id); the framework's own approval is its
 * permission callback saying yes to everything. What the attacker controls is the
 * call the model (or anything between model and runtime) makes again.
 */

/** The runtime builds every model request from its own transcript: no hook sees a tool_result before it is sent. */
const NO_RELAY_HOOK =
  'the Claude runtime relays tool results from its own transcript and no hook sees the request that carries them; CASA check 5 needs the proxy in front of ANTHROPIC_BASE_URL';

const use = (call: AdapterKitCall): ScriptedToolUse => ({ id: call.callId, name: call.toolName, input: call.arguments });

function kitApp(h: Awaited<ReturnType<typeof claudeHarness>>): AdapterKitApp {
  const executions: Executions = [];
  // An SDK MCP server connects to one query at a time: each run gets its own, recording into the same list.
  const mcpServers = () => ({ bank: bankServer(executions) });
  let sessionId = '';
  let made: AdapterKitCall[] = [];
  return {
    shapes: [],
    executions,
    async start(calls) {
      made = [...calls];
      ({ sessionId } = await h.run([calls.map(use)], { mcpServers: mcpServers() }));
    },
    async requestId(callId) {
      const proposal = await h.fixture.ledger.findProposalByCall(sessionId, callId);
      if (proposal === undefined) return undefined;
      return (await h.fixture.ledger.findApprovalRequestByProposal(proposal.proposalId))?.requestId;
    },
    async resume(options = {}) {
      const again = made.map((call) => ({
        ...call,
        ...(options.tamper?.toolName === undefined ? {} : { toolName: options.tamper.toolName }),
        ...(options.tamper?.arguments === undefined ? {} : { arguments: options.tamper.arguments }),
      }));
      if (options.inject !== undefined) again.push(options.inject);
      await h.run([again.map(use)], { mcpServers: mcpServers(), resume: sessionId, canUseTool: allowEverything });
    },
  };
}

const KIT_WIRINGS: Wiring[] = ['in-process', 'client'];

for (const wiring of KIT_WIRINGS) {
  let harness: Awaited<ReturnType<typeof claudeHarness>> | undefined;
  const started = claudeHarness(wiring, { policyYaml: BANK_POLICY, toolNames: BANK_TOOLS }).then((h) => {
    harness = h;
    return h;
  });
  beforeAll(async () => {
    await started;
  });
  afterAll(async () => (await started).close());
  const need = () => {
    if (harness === undefined) throw new Error('the Claude harness is not ready');
    return harness;
  };
  describeAdapterAttacks(`Claude Agent SDK, ${wiring}`, () => ({
    app: () => {
      const h = need();
      return kitApp(h);
    },
    async decide(requestId, decision, editedArguments) {
      const decided = await need().fixture.gate.approvals.decide(OPS, { requestId, decision, ...(editedArguments === undefined ? {} : { editedArguments }) });
      if (!decided.ok) throw new Error(`decision refused: ${decided.reason}`);
    },
    calls: {
      approve: { callId: 'toolu_pay', toolName: 'mcp__bank__transfer', arguments: { to: 'alice', amount: 2500 } },
      allow: { callId: 'toolu_balance', toolName: 'mcp__bank__read_balance', arguments: { account: 'main' } },
      unlisted: { callId: 'toolu_wipe', toolName: 'mcp__bank__wipe', arguments: { account: 'main' } },
      edited: { amount: 25 },
    },
    // MCP servers, SDK MCP servers, subagents and built-in tools all go through the same PreToolUse hook: none is built out of its sight.
    runTimeTools: [],
    auditRecords: () => need().fixture.audit.read({ limit: 1_000_000 }),
    notApplicable: { made_up_results: NO_RELAY_HOOK, refusal_shaped_text: NO_RELAY_HOOK, unknown_shapes: NO_RELAY_HOOK },
    timeoutMs: 120_000,
  }));
}
