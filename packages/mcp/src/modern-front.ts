import { randomBytes, randomUUID } from 'node:crypto';
import { canonicalizeArguments } from '@countersign/core/canonical';
import { createMcpHandler, createRequestStateCodec, inputRequired, ProtocolError, Server, type ServerContext } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Gateway, servedTool } from './gateway.ts';
import { refusalResult } from './refusal.ts';
import { RUN_HEADER, runFromHeaders } from './recorded-call.ts';

/** What the state of an `input_required` round carries: the approval request, bound to the exact call. */
interface ApprovalState {
  requestId: string;
  toolName: string;
  argsDigest: string;
  /** Single use: a state is accepted once; a still-pending call gets a fresh one. */
  nonce: string;
}

export interface ModernFrontOptions {
  /**
   * The HMAC key of `requestState` (at least 32 bytes). Default: a random key of this
   * process, so every round of a call must reach the same gateway process.
   */
  stateKey?: Uint8Array | undefined;
  /** How long a minted state stays valid. Default 600 s. */
  stateTtlSeconds?: number | undefined;
}

export interface ModernFront {
  /** Serves one HTTP request of the 2026-07-28 revision (a 2025-era request is refused: route those to the 1.x front). */
  fetch(request: Request): Promise<Response>;
}

const INVALID_PARAMS = -32602;

/**
 * The gateway for 2026-07-28 clients (`@modelcontextprotocol/server` 2.x, stateless,
 * multi-round-trip). A call that needs approval answers `input_required`: a URL-mode
 * elicitation to the approval page, and a `requestState` naming the Countersign request
 * (a client that declared no `elicitation.url` gets the "approval required" tool result).
 *
 * The state travels through the client, so it is attacker-controlled on re-entry: it is
 * HMAC-sealed by the SDK's codec (integrity, expiry, bound to the method), bound here to
 * the exact call (tool and canonical-argument digest), and consumed once server side (the
 * SDK's codec does not track use): a replayed state is refused. The call itself runs only
 * through the gate as on the 1.x front, so the ledger's single-use consume decides whether
 * it runs; the state only says which request the retry is about.
 */
export function modernGatewayFront(gateway: Gateway, options: ModernFrontOptions = {}): ModernFront {
  const codec = createRequestStateCodec<ApprovalState>({
    key: options.stateKey ?? randomBytes(32),
    ttlSeconds: options.stateTtlSeconds ?? 600,
    bind: (ctx) => ctx.mcpReq.method,
  });
  const ttlMs = (options.stateTtlSeconds ?? 600) * 1000;
  // Nonces of states already used, until they would have expired anyway.
  const spent = new Map<string, number>();

  const spend = (nonce: string): boolean => {
    const now = Date.now();
    for (const [n, until] of spent) if (until <= now) spent.delete(n);
    if (spent.has(nonce)) return false;
    spent.set(nonce, now + ttlMs);
    return true;
  };

  const factory = () => {
    const server = new Server({ name: 'countersign-mcp-gateway', version: '0.1.0' }, { capabilities: { tools: {} }, requestState: { verify: codec.verify } });
    server.setRequestHandler('tools/list', async () => ({ tools: (await gateway.listTools()).map(servedTool) as never }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: args = {}, _meta: meta } = request.params;
      const state = ctx.mcpReq.requestState<ApprovalState>();
      if (state !== undefined) {
        const refusal = stateProblem(state, name, args, spend);
        if (refusal !== undefined) return refusal as never;
      }
      // A retry carries the user's answer to the previous round's elicitation. Opened: this call waits
      // for the decision as the 1.x front does after an accepted URL elicitation. Declined: no new round.
      const answered = state === undefined ? undefined : elicitationAction(ctx.mcpReq.inputResponses?.approval);
      const channel = answered === undefined ? {} : { elicitUrl: async () => answered, signal: ctx.mcpReq.signal };
      // The run named in the x-countersign-run header counts like _meta's, as on the 1.x front.
      const headerRun = runFromHeaders({ [RUN_HEADER]: ctx.http?.req?.headers.get(RUN_HEADER) ?? undefined });
      const result = await gateway.callTool(name, args, meta, channel, headerRun);
      if (result === undefined) throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${name}`);
      const pending = pendingApproval(result);
      // Without a URL elicitation to offer (no page, or a client that cannot show one) a round would only
      // repeat itself: such a client gets the "approval required" result with the link, as on the 1.x front.
      if (pending?.approvalUrl === undefined || answered === 'decline' || answered === 'cancel') return result as never;
      if (server.getClientCapabilities()?.elicitation?.url === undefined) return result as never;
      return (await approvalRound(codec.mint.bind(codec), ctx, name, args, { requestId: pending.requestId, approvalUrl: pending.approvalUrl })) as never;
    });
    return server;
  };
  const handler = createMcpHandler(factory, { legacy: 'reject' });
  return { fetch: (request) => handler.fetch(request) };
}

/** A state must be one of ours for this very call, and unused. */
function stateProblem(state: ApprovalState, name: string, args: Record<string, unknown>, spend: (nonce: string) => boolean): CallToolResult | undefined {
  const refuse = (message: string) => refusalResult({ reason: 'invalid_request_state', message, toolName: name, requestId: state.requestId });
  if (state.toolName !== name || state.argsDigest !== digestOf(args)) return refuse('the request state belongs to another call');
  if (!spend(state.nonce)) return refuse('the request state was already used');
  return undefined;
}

/** What the client's user did with the approval page, from its answer to the previous round (untrusted: only these three). */
function elicitationAction(response: unknown): 'accept' | 'decline' | 'cancel' | undefined {
  const action = typeof response === 'object' && response !== null ? (response as { action?: unknown }).action : undefined;
  return action === 'accept' || action === 'decline' || action === 'cancel' ? action : undefined;
}

/** The approval request of an "approval required" refusal, if the result is one. */
function pendingApproval(result: CallToolResult): { requestId: string; approvalUrl?: string | undefined } | undefined {
  const refusal = (result._meta as { countersign?: Record<string, unknown> } | undefined)?.countersign;
  if (result.isError !== true || refusal?.reason !== 'approval_required' || typeof refusal.requestId !== 'string') return undefined;
  return { requestId: refusal.requestId, approvalUrl: typeof refusal.approvalUrl === 'string' ? refusal.approvalUrl : undefined };
}

async function approvalRound(
  mint: (payload: ApprovalState, ctx: ServerContext) => Promise<string>,
  ctx: ServerContext,
  name: string,
  args: Record<string, unknown>,
  pending: { requestId: string; approvalUrl: string },
) {
  const requestState = await mint({ requestId: pending.requestId, toolName: name, argsDigest: digestOf(args), nonce: randomUUID() }, ctx);
  const message = `Countersign: the call of ${name} needs a person's approval. Open the approval page to decide it.`;
  return inputRequired({ inputRequests: { approval: inputRequired.elicitUrl({ message, url: pending.approvalUrl }) }, requestState });
}

function digestOf(args: Record<string, unknown>): string {
  try {
    return canonicalizeArguments(args).digest;
  } catch {
    return 'invalid';
  }
}
