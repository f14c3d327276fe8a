import type { AuthorizeRequest, CallStatusResult, CompleteOutcome, Completion, Grant, ProposeOutcome, TokenResult } from '@countersign/core/gate';
import { type ApprovalWait, awaitApproval, type PendingCall } from './await-approval.ts';
import { type Authorization, authorizeStep, tokenStep } from './authorize-step.ts';
import { type Execution, executeStep, type GrantedTool } from './execute-step.ts';
import { proposeStep, type WorkflowModelResponse } from './propose-step.ts';
import { type CallResult, callStatusStep, completeStep, type ProposedCall, runCall } from './run-call.ts';
import { type CountersignWorkflowOptions, currentWorkflowId, settingsOf } from './settings.ts';

/**
 * Countersign's steps for code inside a DBOS workflow function. Each method is a recorded
 * step (or, for the wait, recorded reads and `DBOS.recv`), so a recovered workflow replays
 * them from the engine's history. `runCall` is the whole flow for one proposed call.
 */
export interface CountersignWorkflow {
  /** Records the model's calls (run id = the workflow id). */
  propose(response: WorkflowModelResponse): Promise<ProposeOutcome[]>;
  /** Waits durably until the request is decided, at most until its expiry. */
  awaitApproval(pending: PendingCall): Promise<ApprovalWait>;
  token(requestId: string): Promise<TokenResult>;
  /** Spends the approval (never retried); the grant is recorded by the engine. */
  authorize(request: AuthorizeRequest): Promise<Authorization>;
  /** Runs the tool only with a fresh authorization; a replayed one records `unknown`. */
  execute<Result>(authorization: Authorization & { outcome: { status: 'authorized'; grant: Grant } }, tool: GrantedTool<Result>): Promise<Execution<Result>>;
  complete(grant: Grant, completion: Completion): Promise<CompleteOutcome>;
  callStatus(proposalId: string): Promise<CallStatusResult>;
  /** The whole flow for one call; `proposed` must be an outcome this object's `propose` returned (else `unknown_call`). */
  runCall<Result>(proposed: ProposeOutcome, tool: GrantedTool<Result>): Promise<CallResult<Result>>;
}

export function countersignWorkflow(options: CountersignWorkflowOptions): CountersignWorkflow {
  const settings = settingsOf(options);
  // What propose sent for each outcome it returned (by identity: a recovered workflow proposes
  // again and gets its recorded outcomes, new objects, so they are filled again). Weak: an
  // outcome never run is forgotten with it.
  const proposedCalls = new WeakMap<ProposeOutcome, ProposedCall>();
  return {
    propose(response) {
      // Called outside a workflow, this throws at once (not a rejected promise).
      const proposing = proposeStep(settings, response);
      const context = { runId: currentWorkflowId('propose'), sessionId: response.sessionId, principal: response.principal };
      return proposing.then((outcomes) => {
        for (const outcome of outcomes) {
          if (outcome.status !== 'allowed' && outcome.status !== 'approval_required') continue;
          const call = response.toolCalls.find((c) => c.id === outcome.callId);
          if (call !== undefined) proposedCalls.set(outcome, { context, toolName: call.name, arguments: call.arguments });
        }
        return outcomes;
      });
    },
    awaitApproval: (pending) => awaitApproval(settings, pending),
    token: (requestId) => tokenStep(settings, requestId),
    authorize: (request) => authorizeStep(settings, request),
    execute: (authorization, tool) => executeStep(authorization.outcome.grant, authorization.fresh, tool),
    complete: (grant, completion) => completeStep(settings, grant, completion),
    callStatus: (proposalId) => callStatusStep(settings, proposalId),
    runCall: (proposed, tool) => runCall(settings, proposed, tool, proposedCalls.get(proposed)),
  };
}
