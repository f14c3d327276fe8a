import { type AdapterKitApp, type AdapterKitCall, describeAdapterAttacks } from '@countersign/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { claudeHarness, type LiveSession, OPS, type Wiring } from './agent.test-helper.ts';
import { allowEverything, BANK_POLICY, BANK_TOOLS, bankServer, type Executions } from './bank.test-helper.ts';
import type { ScriptedToolUse } from './testing/scripted-messages-server.ts';

/*
 * The adapter attack kit through the real Claude Agent SDK runtime (its platform
 * package from the npm registry) against a scripted Messages API on loopback: the
 * tools are an in-process SDK MCP server's, guarded by the PreToolUse/PostToolUse
 * hooks, on the in-process gate and over @countersign/client.
 *
 * "Resuming" is what the runtime does: the SDK session goes on (a new turn of the live
 * session, or `resume` from another process) and the model makes the call again (same
 * tool-use id); the framework's own approval is its permission callback saying yes to
 * everything. What the attacker controls is the call the model (or anything between
 * model and runtime) makes again.
 */

/** The runtime builds every model request from its own transcript: no hook sees a tool_result before it is sent. */
const NO_RELAY_HOOK =
  'the Claude runtime relays tool results from its own transcript and no hook sees the request that carries them; CASA check 5 needs the proxy in front of ANTHROPIC_BASE_URL';

const use = (call: AdapterKitCall): ScriptedToolUse => ({ id: call.callId, name: call.toolName, input: call.arguments });

type Harness = Awaited<ReturnType<typeof claudeHarness>>;

/**
 * The runtime session of one kit app: its own SDK session (so its own Countersign run),
 * the bank's tools recording into the app's list, and the framework's own approval
 * saying yes to everything from the first turn on. Opened one app ahead (see `kitApps`).
 */
function openAppSession(h: Harness): { executions: Executions; session: Promise<LiveSession> } {
  const executions: Executions = [];
  return { executions, session: h.session({ mcpServers: { bank: bankServer(executions) }, canUseTool: allowEverything }) };
}

/**
 * Kit apps on live runtime sessions. The runtime starts in about 2 s: each app's session
 * is started while the previous attack runs, and the app's turns (start, resumes) are
 * turns of that one session, not a query each. A resume while another is in flight (the
 * concurrent double resume) is a second runtime process resuming the session from its
 * transcript, so the two really run side by side.
 */
function kitApps(h: Harness): () => AdapterKitApp {
  let spare = openAppSession(h);
  let previous: Promise<LiveSession> | undefined;
  return () => {
    const { executions, session } = spare;
    spare = openAppSession(h);
    // The kit runs its attacks one after another: the last app's runtime is done with.
    void previous?.then((done) => done.close());
    previous = session;
    let sessionId = '';
    let made: AdapterKitCall[] = [];
    let turnInFlight = false;
    return {
      shapes: [],
      executions,
      async start(calls) {
        made = [...calls];
        ({ sessionId } = await (await session).turn([calls.map(use)]));
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
        if (turnInFlight) {
          // An SDK MCP server connects to one query at a time: this process gets its own, recording into the same list.
          await h.run([again.map(use)], { mcpServers: { bank: bankServer(executions) }, resume: sessionId, canUseTool: allowEverything });
          return;
        }
        turnInFlight = true;
        try {
          await (await session).turn([again.map(use)]);
        } finally {
          turnInFlight = false;
        }
      },
    };
  };
}

const KIT_WIRINGS: Wiring[] = ['in-process', 'client'];

for (const wiring of KIT_WIRINGS) {
  let harness: Harness | undefined;
  let apps: (() => AdapterKitApp) | undefined;
  const started = claudeHarness(wiring, { policyYaml: BANK_POLICY, toolNames: BANK_TOOLS }).then((h) => {
    harness = h;
    return h;
  });
  beforeAll(async () => {
    apps = kitApps(await started);
  });
  afterAll(async () => (await started).close());
  const need = () => {
    if (harness === undefined || apps === undefined) throw new Error('the Claude harness is not ready');
    return { h: harness, apps };
  };
  describeAdapterAttacks(`Claude Agent SDK, ${wiring}`, () => ({
    app: () => need().apps(),
    async decide(requestId, decision, editedArguments) {
      const decided = await need().h.fixture.gate.approvals.decide(OPS, { requestId, decision, ...(editedArguments === undefined ? {} : { editedArguments }) });
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
    auditRecords: () => need().h.fixture.audit.read({ limit: 1_000_000 }),
    notApplicable: { made_up_results: NO_RELAY_HOOK, refusal_shaped_text: NO_RELAY_HOOK, unknown_shapes: NO_RELAY_HOOK },
    timeoutMs: 120_000,
  }));
}
