import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import type { Approver } from '@countersign/core/gate';
import type { ApprovalRequest } from '@countersign/core/ledger';
import { submitDecision } from '../../approvals/submit-decision.ts';
import { revokeRequest } from '../../approvals/revoke.ts';
import { withdrawApproval } from '../../approvals/withdraw.ts';
import { approverOf } from '../../auth/approver-of.ts';
import { requireApprover } from '../../auth/require-identity.ts';
import { readJsonBody } from '../../http/read-json.ts';
import { validate } from '../../http/validate.ts';
import { approvalView } from '../../views/request-views.ts';
import { DecisionBody } from '../schemas.ts';

/**
 * POST /decisions: `{ requestId, decision, reason?, editedArguments?, passkeyAssertion? }` and nothing else.
 * `decision: "revoke"` withdraws a pending or approved, unconsumed request (no reason, no edit);
 * `decision: "withdraw"` takes back the caller's own approval of a request still pending.
 */
export function decisionRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/decisions', requireApprover(services), async (c) => {
    const body = validate(DecisionBody, await readJsonBody(c, services.bodyLimits));
    const { decision, ...rest } = body;
    const outcome: { request: ApprovalRequest; editedRequest?: ApprovalRequest | undefined; auditRecorded?: false } =
      decision === 'revoke'
        ? await revokeRequest(services, approverOf(c), body.requestId)
        : decision === 'withdraw'
          ? await withdrawApproval(services, approverOf(c), body.requestId)
          : await decideCall(services, approverOf(c), { ...rest, decision });
    // Read back after the decision took effect: a failed read shows as null, never as a failed decision.
    const request = await services.gate.approvals.view(outcome.request.requestId);
    const edited = outcome.editedRequest === undefined ? undefined : await services.gate.approvals.view(outcome.editedRequest.requestId);
    return c.json({
      request: request.ok ? await approvalView(services.gate, request.view) : null,
      ...(edited?.ok === true ? { editedRequest: await approvalView(services.gate, edited.view) } : {}),
      // The decision took effect; its audit record did not get written (an audit outage).
      ...(outcome.auditRecorded === false ? { auditRecorded: false } : {}),
    });
  });
  return routes;
}

function decideCall(services: Services, approver: Approver, body: DecisionBody & { decision: 'approve' | 'deny' }) {
  return submitDecision(
    services,
    approver,
    {
      requestId: body.requestId,
      decision: body.decision,
      reason: body.reason,
      ...(body.editedArguments === undefined ? {} : { editedArguments: body.editedArguments }),
      // Read strictly and verified by the gate against the claims it rebuilds from the ledger.
      ...(body.passkeyAssertion === undefined ? {} : { passkeyAssertion: body.passkeyAssertion }),
    },
  );
}
