import type { GatePort, Grant } from '@countersign/core/gate';
import {
  type CompletionFailure,
  type CountersignReason,
  finishCall,
  formatRefusal,
  type GuardedContext,
  type GuardedRefusal,
  guardCall,
  proposeOrReject,
  unreachable,
} from '@countersign/core/integration';
import { recordHookRefusal } from './relayed-refusal.ts';

/** The hook shapes this integration reads and answers (a structural subset of the SDK's types). */
interface ToolHookInput {
  hook_event_name: string;
  session_id: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_use_id?: string;
  tool_response?: unknown;
  error?: string;
}
type HookOutput = Record<string, unknown>;

/** A refusal the hooks give: the gate's, or `unsupported_tool` (a built-in tool while the relay check is on). */
export type ClaudeRefusal = Omit<GuardedRefusal, 'reason'> & { reason: CountersignReason<'unsupported_tool'> };
type Hook = (input: ToolHookInput, toolUseId: string | undefined, options: { signal: AbortSignal }) => Promise<HookOutput>;
interface HookMatcher {
  hooks: Hook[];
  timeout?: number;
  onFailure: 'block';
}

export interface CountersignClaudeOptions {
  /** The gate: `InProcessGatePort` around a `Gate`, or `@countersign/client`. */
  port: GatePort;
  /** On whose behalf the agent acts. */
  principal: string;
  /**
   * The Countersign run of an SDK session. Default: the SDK's session id, so a session
   * the SDK resumes keeps its run (and its approvals); a forked session is a new run.
   */
  runIdOf?: ((sdkSessionId: string) => string) | undefined;
  /** The Countersign session id (default: the SDK's session id). */
  sessionId?: string | undefined;
  /**
   * How long the hook waits for an approver before refusing the call as
   * `approval_pending` (the model sees the request id; a later attempt of the same
   * call runs once it is approved). Default 0: refuse at once.
   */
  waitMs?: number | undefined;
  /** Every refusal, for the app's own log (the model sees it as the hook's reason). */
  onRefusal?: ((refusal: ClaudeRefusal, call: { toolUseId: string; toolName: string }) => void) | undefined;
  /** A completion the gate did not record: the call then reads "ran, result unknown". */
  onCompletionFailure?: ((failure: CompletionFailure) => void) | undefined;
}

/** What to spread into `query({ options })`: the hooks that guard every tool call. */
export interface CountersignClaudeHooks {
  hooks: { PreToolUse: HookMatcher[]; PostToolUse: HookMatcher[]; PostToolUseFailure: HookMatcher[] };
}

const deny = (reason: string): HookOutput => ({
  hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
});

/**
 * Guards every tool call of a Claude Agent SDK agent with Countersign. The runtime calls
 * `PreToolUse` for every tool call, including those it would run without asking (a
 * "safe" shell command, a read) and those of MCP servers: the hook records the call,
 * asks the gate (policy, approval, consume once) and answers `allow` with the LEDGER's
 * arguments as `updatedInput` (after an approver's edit, the edited ones), or `deny`
 * with the typed refusal. `PostToolUse` / `PostToolUseFailure` complete the call. Hooks
 * that fail block the call (`onFailure: 'block'`), and the hook itself never throws.
 */
export function countersignHooks(options: CountersignClaudeOptions): CountersignClaudeHooks {
  return guardHooks(options, false);
}

/** MCP tools are named `mcp__<server>__<tool>` by the runtime; every other name is one of its built-in tools. */
export const isMcpTool = (toolName: string) => toolName.startsWith('mcp__');

const BUILT_IN_UNCHECKED =
  "with the relay check on, only MCP tools run: the runtime relays a built-in tool's output in its own rendering, which the relay check cannot compare with the result the tool reported";

/** The hooks, and with `relayCheck` the rules the relay check needs (refusals recorded in the ledger, built-in tools refused). */
export function guardHooks(options: CountersignClaudeOptions, relayCheck: boolean): CountersignClaudeHooks {
  const { port } = options;
  const grants = new Map<string, Grant>();
  const contextOf = (sdkSessionId: string): GuardedContext => ({
    runId: options.runIdOf?.(sdkSessionId) ?? sdkSessionId,
    sessionId: options.sessionId ?? sdkSessionId,
    principal: options.principal,
  });
  const refuse = async (refusal: ClaudeRefusal, context: GuardedContext, toolUseId: string, toolName: string): Promise<HookOutput> => {
    options.onRefusal?.(refusal, { toolUseId, toolName });
    const text = formatRefusal(refusal);
    // The runtime relays the reason to the model as the call's tool_result: recorded first, so the relay check accepts exactly it.
    return deny(relayCheck ? await recordHookRefusal(port, context, toolUseId, toolName, text) : text);
  };

  const preToolUse: Hook = async (input, _id, { signal }) => {
    const { tool_use_id: callId, tool_name: toolName } = input;
    if (input.hook_event_name !== 'PreToolUse' || typeof callId !== 'string' || typeof toolName !== 'string') {
      return deny('countersign: a tool call this integration cannot identify does not run');
    }
    const context = contextOf(input.session_id);
    if (relayCheck && !isMcpTool(toolName)) {
      return refuse({ status: 'rejected', reason: 'unsupported_tool', message: BUILT_IN_UNCHECKED }, context, callId, toolName);
    }
    try {
      const [recorded] = await proposeOrReject(port, { ...context, toolCalls: [{ id: callId, name: toolName, arguments: input.tool_input }] });
      const step = await guardCall(port, { context, callId, toolName, arguments: input.tool_input, recorded }, { waitMs: options.waitMs ?? 0, signal });
      // `unknown`: the approval may be spent; shown with reason outcome_unknown (may have run, do not retry), never run.
      if (step.kind === 'refused' || step.kind === 'unknown') return refuse(step.refusal, context, callId, toolName);
      if (step.kind === 'wait') {
        const message = `approval request ${step.requestId} has not been decided in Countersign; try this call again once it is approved`;
        return refuse({ status: 'not_approved', reason: 'approval_pending', message, proposalId: step.proposalId }, context, callId, toolName);
      }
      grants.set(callId, step.grant);
      const updatedInput = JSON.parse(step.grant.canonicalArgs) as Record<string, unknown>;
      return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput } };
    } catch (error) {
      return refuse({ status: 'not_approved', reason: 'store_unavailable', message: unreachable(error) }, context, callId, toolName);
    }
  };

  const complete =
    (event: 'PostToolUse' | 'PostToolUseFailure'): Hook =>
    async (input) => {
      const callId = input.tool_use_id;
      const grant = callId === undefined ? undefined : grants.get(callId);
      if (input.hook_event_name !== event || callId === undefined || grant === undefined) return {};
      grants.delete(callId);
      const failure = await finishCall(
        port,
        grant,
        event === 'PostToolUse' ? { status: 'succeeded', result: recordedResult(input.tool_name, input.tool_response) } : { status: 'failed', error: input.error ?? 'the tool failed' },
      );
      if (failure !== undefined) options.onCompletionFailure?.(failure);
      return {};
    };

  // The runtime's own hook timeout must outlast the wait for an approver.
  const timeout = Math.ceil((options.waitMs ?? 0) / 1000) + 60;
  return {
    hooks: {
      PreToolUse: [{ hooks: [preToolUse], timeout, onFailure: 'block' }],
      PostToolUse: [{ hooks: [complete('PostToolUse')], onFailure: 'block' }],
      PostToolUseFailure: [{ hooks: [complete('PostToolUseFailure')], onFailure: 'block' }],
    },
  };
}

/**
 * What the ledger records as a call's result. An MCP tool's response reaches PostToolUse
 * as its content blocks; recorded as the MCP `CallToolResult` it is (`{ content }`), its
 * text is one of the forms the relay check accepts, the form the runtime relays.
 */
function recordedResult(toolName: string | undefined, response: unknown): unknown {
  if (toolName !== undefined && isMcpTool(toolName) && Array.isArray(response)) return { content: response };
  return response ?? null;
}
