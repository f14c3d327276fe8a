import { type DisplayFinding, inspectForDisplay } from '@countersign/core/display';
import { checkInputSchema, type InputSchemaProblem, type RequestView } from '@countersign/core/gate';

/**
 * What a person reading this call should be warned about. Raw values elsewhere in the
 * view stay byte-exact for machines; this says which of them do not read as what they are.
 * Every pointer is into one document: `{ toolName, principal, runId, sessionId, callId,
 * proposalId, responseRef, ruleId, ruleDescription, context, arguments, decisions: [{ approver, reason }] }`.
 */
export interface CallDisplay {
  /** Hidden or misleading characters (bidi controls, invisible, controls, odd spaces, non-NFC, Latin look-alikes). */
  findings: DisplayFinding[];
  /** More was found than `findings` lists. */
  truncated: boolean;
  /** The arguments against the pinned tool definition's input schema. */
  inputSchema: { checked: boolean; problems: InputSchemaProblem[] };
}

/** The document the pointers of `CallDisplay` point into. */
export function displayDocument(view: RequestView, args: unknown): Record<string, unknown> {
  const { request, proposal } = view;
  return {
    toolName: proposal.toolName,
    principal: proposal.principal,
    runId: proposal.runId,
    sessionId: proposal.sessionId,
    callId: proposal.callId,
    proposalId: proposal.proposalId,
    ...(proposal.responseRef === undefined ? {} : { responseRef: proposal.responseRef }),
    ...(request.ruleId === undefined ? {} : { ruleId: request.ruleId }),
    ...(request.ruleDescription === undefined ? {} : { ruleDescription: request.ruleDescription }),
    ...(proposal.context === undefined ? {} : { context: proposal.context }),
    arguments: args,
    decisions: request.decisions.map((d) => ({ approver: d.approver, ...(d.reason === undefined ? {} : { reason: d.reason }) })),
  };
}

export function callDisplayOf(view: RequestView): CallDisplay {
  // The ledger holds canonical JSON: it parses, and parses to what was hashed.
  const args: unknown = JSON.parse(view.proposal.canonicalArgs);
  const { findings, truncated } = inspectForDisplay(displayDocument(view, args));
  const schema = view.definition.status === 'pinned' ? view.definition.definition?.inputSchema : undefined;
  const check = checkInputSchema(schema, args);
  const inputSchema = check.ok
    ? { checked: check.checked, problems: [] }
    : { checked: true, problems: check.problems.map((p) => ({ pointer: `/arguments${p.pointer}`, message: p.message })) };
  return { findings, truncated, inputSchema };
}
