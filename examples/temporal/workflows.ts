import { countersignWorkflow, type GuardedCallResult } from '@countersign/temporal/workflow';

/**
 * The example's workflow (runs in Temporal's sandbox): the model asked for a transfer;
 * Countersign records it, the workflow waits durably for the approval (until the request's
 * expiry, on the workflow clock), then the guarded `transfer` activity runs it.
 */
export async function paymentWorkflow(input: { principal: string; amount: number; to: string }): Promise<GuardedCallResult> {
  const countersign = countersignWorkflow({ activityOptions: { startToCloseTimeout: '1 minute' } });
  return countersign.callTool(
    { sessionId: 'example-session', principal: input.principal },
    { id: 'call-1', name: 'transfer', arguments: { amount: input.amount, to: input.to } },
  );
}
