import { z } from 'zod';
import { MAX_PROPOSAL_CONTEXT_LENGTH } from '../call-ids.ts';

/** Ids are opaque strings of bounded length; the gate applies the same bound. */
export const Id = z.string().min(1).max(256);

/** An approval token (compact JWS); generous, but bounded before anything verifies it. */
export const TokenText = z.string().min(1).max(8192);

/** POST /proposals: every tool call of one model response (`ModelResponse`). */
export const ProposalsBody = z
  .object({
    runId: Id,
    sessionId: Id,
    principal: Id,
    /** The model response id. */
    responseRef: Id.optional(),
    /** Deprecated: the older wire name of `responseRef`, still accepted (both given: they must be equal). */
    modelResponseRef: Id.optional(),
    /** The current task (one sentence, extracted agent- or proxy-side) for the intent stage; or `taskId`, a stored summary. */
    task: z.string().min(1).max(4000).optional(),
    taskId: Id.optional(),
    /** The assistant's offers the user only accepted, for the intent stage's matcher. */
    offered: z.array(z.string().min(1).max(4000)).max(16).optional(),
    /** Propose-and-authorize: each call policy allows outright comes back authorized, with its grant. */
    authorizeAllowed: z.boolean().optional(),
    toolCalls: z
      .array(
        z
          .object({
            id: Id,
            name: Id,
            /** JSON text (OpenAI style) or an object; canonicalized strictly by the gate. */
            arguments: z.unknown(),
            /** What the agent says about the call, shown to the approver as its untrusted words. */
            context: z.string().max(MAX_PROPOSAL_CONTEXT_LENGTH).optional(),
            /** A hosted tool the provider already ran: recorded, never authorized (`provider_executed`). */
            executedBy: z.literal('provider').optional(),
          })
          .strict(),
      )
      .min(1)
      .max(128),
  })
  .strict();

/**
 * POST /authorize and POST /dispatch (`AuthorizeRequest`): `proposalId` (from the
 * proposals outcome) selects the call; the other fields are optional cross-checks
 * that must match the recorded call.
 */
export const AuthorizeBody = z
  .object({
    proposalId: Id,
    runId: Id.optional(),
    callId: Id.optional(),
    sessionId: Id.optional(),
    principal: Id.optional(),
    token: TokenText.optional(),
    toolName: Id.optional(),
    arguments: z.unknown().optional(),
  })
  .strict();

/**
 * POST /authorize/recorded (`MatchingCallRequest`): checks 3 and 4 for a runtime that has
 * only the call it is about to make (an MCP gateway's `tools/call`), not the proposal id.
 */
export const RecordedCallBody = z
  .object({
    runId: Id,
    callId: Id.optional(),
    toolName: Id,
    arguments: z.unknown(),
    principal: Id.optional(),
    sessionId: Id.optional(),
    token: TokenText.optional(),
  })
  .strict();

/** POST /tools/admission: may the agent's registered tool be shown and called now (its pin decides). */
export const ToolAdmissionBody = z.object({ toolName: Id }).strict();

/** Dispatch takes the same body as authorize: it is authorize + run + complete. */
export const DispatchBody = AuthorizeBody;

/** A grant as `authorize` issued it (`Grant`). Strict: a grant is echoed back, never extended. */
export const GrantSchema = z
  .object({
    v: z.literal(1),
    proposalId: Id,
    runId: Id,
    sessionId: Id,
    principal: Id,
    agent: Id,
    callId: Id,
    toolName: Id,
    definitionDigest: z.string().max(256).optional(),
    canonicalArgs: z.string(),
    argsDigest: z.string().max(256),
    requestId: Id.optional(),
    tokenId: Id.optional(),
    approvers: z.array(Id).max(64).optional(),
    authorizedAt: z.number().int().nonnegative(),
  })
  .strict();

/** What the runtime reports after running a granted call (`Completion`). */
export const CompletionSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('succeeded'), result: z.unknown() }).strict(),
  z.object({ status: z.literal('failed'), error: z.string().max(4096) }).strict(),
]);

/** POST /complete. */
export const CompleteBody = z.object({ grant: GrantSchema, completion: CompletionSchema }).strict();

/**
 * POST /runs/:runId/relayed (CASA check 5): the tool results the runtime relays to the
 * model, each with its call id and the content as relayed (a string or content parts).
 */
export const RelayedBody = z
  .object({
    toolMessages: z
      .array(
        z
          .object({
            callId: Id,
            content: z.unknown().refine((c) => c !== undefined, 'content is required'),
            /** The content is a hosted tool's output the provider produced (checked against `recordProviderOutput`). */
            providerOutput: z.literal(true).optional(),
          })
          .strict(),
      )
      .max(1024),
  })
  .strict();

/** PUT /tools: the agent's tool definitions; each is checked strictly by the gate (`parseToolDefinition`). */
export const ToolsBody = z
  .object({ tools: z.array(z.record(z.string(), z.unknown())).min(1).max(256) })
  .strict();
