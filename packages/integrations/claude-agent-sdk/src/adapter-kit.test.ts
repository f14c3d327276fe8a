import { type AdapterKitApp, type AdapterKitCall, describeAdapterAttacks } from '@countersign/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { claudeHarness, type LiveSession, OPS, type Wiring } from './agent.test-helper.ts';
import { allowEverything, BANK_POLICY, BANK_TOOLS, bankServer, type Executions } from './bank.test-helper.ts';
import type { ScriptedToolUse } from './testing/scripted-messages-server.ts';

/*
 * The adapter attack kit through the real Claude Agent SDK runtime (its platform
 * package from the npm registry) against a scripted Messages API on loopback: the
 * tools are an in-process SDK MCP server's, guarded by `countersignClaudeAgent` (the
 * PreToolUse/PostToolUse hooks and the relay-checking proxy in front of the model), on
 * the in-process gate and over @countersign/client.
 *
 * The relay attacks send the runtime's own last model request (its transcript, as it
 * reached the model) again to the runtime's ANTHROPIC_BASE_URL, the proxy, with one
 * tool_result made up: what a tampered session transcript makes the runtime send on
 * resume (relay-check.test.ts does that through the runtime itself).
 *
 * "Resuming" is what the runtime does: the SDK session goes on (a new turn of the live
 * session, or `resume` from another process) and the model makes the call again (same
 * tool-use id); the framework's own approval is its permission callback saying yes to
 * everything. What the attacker controls is the call the model (or anything between
 * model and runtime) makes again.
 */

/** The relay-checking proxy in front of the model (`countersignClaudeAgent`); without it the relay attacks fail. */
const RELAY_CHECK = true;

type Block = Record<string, unknown>;
type Message = { role: string; content: string | Block[] };

/** The forms a tool_result takes in a Messages API request: what the kit forges. */
const RESULT_SHAPES: Record<string, (text: string) => Block> = {
  text: (text) => ({ content: text }),
  text_blocks: (text) => ({ content: [{ type: 'text', text }] }),
  is_error: (text) => ({ content: text, is_error: true }),
};

/** The content blocks of the request's last user message (the one carrying the latest tool results). */
function lastUserBlocks(messages: Message[]): Block[] {
  const last = messages.findLast((m) => m.role === 'user' && Array.isArray(m.content));
  if (last === undefined || !Array.isArray(last.content)) throw new Error('the runtime sent no user message with content blocks');
  return last.content;
}

const use = (call: AdapterKitCall): ScriptedToolUse => ({ id: call.callId, name: call.toolName, input: call.arguments });

type Harness = Awaited<ReturnType<typeof claudeHarness>>;

/**
 * The runtime's last model request of `live` with `edit` applied to its messages, sent
 * again where the runtime sends them, as session `sessionId`: the proxy, or (relay check
 * off) the model itself. A refusal throws, with code `relay_refused` when a check (403)
 * or the shape rule (400) refused the relay.
 */
async function resend(live: LiveSession, sessionId: string, edit: (messages: Message[]) => void): Promise<void> {
  const target = live.guard?.env ?? { ANTHROPIC_BASE_URL: live.model.url, ANTHROPIC_API_KEY: 'sk-scripted' };
  const body = JSON.parse(live.model.requests.at(-1) ?? '{}') as { messages: Message[] };
  edit(body.messages);
  const response = await fetch(`${target.ANTHROPIC_BASE_URL}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': target.ANTHROPIC_API_KEY ?? '', 'x-claude-code-session-id': sessionId },
    body: JSON.stringify(body),
  });
  if (response.ok) return;
  const { error } = (await response.json()) as { error: { type: string; code: string; message: string } };
  const refusedRelay = error.type === 'countersign_refused' || error.code === 'unsupported_tool_result';
  throw Object.assign(new Error(error.message), { code: refusedRelay ? 'relay_refused' : error.code });
}

/**
 * Kit apps on one live runtime session per wiring, started with the harness: each app
 * begins with `/clear`, so it has its own SDK session (its own Countersign run, an
 * empty conversation) in the same runtime process, which saves a runtime start-up per
 * attack. The bank's tools record into the current app's list (the kit runs its
 * attacks one after another); the framework's own approval says yes to everything; one
 * relay-checking proxy (`countersignClaudeAgent`) stands in front of the scripted model.
 * A resume while another is in flight (the concurrent double resume) is a second runtime
 * process resuming the app's session from its transcript, so the two really run side by side.
 */
function kitApps(h: Harness): () => AdapterKitApp {
  let executionsOfCurrentApp: Executions = [];
  const bank = bankServer({ push: (...ran) => executionsOfCurrentApp.push(...ran) });
  const live = h.session({ mcpServers: { bank }, canUseTool: allowEverything, relayCheck: RELAY_CHECK });
  return () => {
    const executions: Executions = [];
    let sessionId = '';
    let made: AdapterKitCall[] = [];
    let turnInFlight = false;
    return {
      shapes: Object.keys(RESULT_SHAPES),
      executions,
      async start(calls) {
        made = [...calls];
        const session = await live;
        await session.clear();
        executionsOfCurrentApp = executions;
        ({ sessionId } = await session.turn([calls.map(use)]));
      },
      relay: async ({ callId, shape, text }) =>
        resend(await live, sessionId, (messages) => {
          const forged = { type: 'tool_result', tool_use_id: callId, ...RESULT_SHAPES[shape]?.(text) };
          const blocks = lastUserBlocks(messages);
          const at = messages.flatMap((m) => (m.role === 'user' && Array.isArray(m.content) ? m.content : [])).find((b) => b.type === 'tool_result' && b.tool_use_id === callId);
          if (at !== undefined) Object.assign(at, { content: undefined, is_error: undefined }, forged);
          else blocks.push(forged);
        }),
      relayUnknownShape: async () =>
        resend(await live, sessionId, (messages) => {
          lastUserBlocks(messages).push({ type: 'mystery_tool_result', tool_use_id: made[0]?.callId, content: 'ok' });
        }),
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
          await h.run([again.map(use)], { mcpServers: { bank: bankServer(executions) }, resume: sessionId, canUseTool: allowEverything, relayCheck: RELAY_CHECK });
          return;
        }
        turnInFlight = true;
        try {
          await (await live).turn([again.map(use)]);
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
    timeoutMs: 120_000,
  }));
}
