/**
 * The value the middleware interrupts with when a call waits for a person's approval:
 * the Countersign request to decide, named by the call's id (never by a position in a
 * list). The approver decides that request in Countersign (the approval UI, the API,
 * `gate.approvals.decide`); whatever the app resumes with is not read as a decision.
 */
export interface CountersignApprovalInterrupt {
  type: 'countersign_approval';
  toolCallId: string;
  toolName: string;
  /** The arguments as the model proposed them (for display; the ledger's copy is what runs). */
  args: unknown;
  requestId: string;
  proposalId: string;
}

/** The Countersign approval requests in an agent result's `__interrupt__` list, by tool-call id. */
export function countersignInterrupts(interrupts: ReadonlyArray<{ value?: unknown }> | undefined): CountersignApprovalInterrupt[] {
  return (interrupts ?? []).map((i) => i.value).filter(isApprovalInterrupt);
}

function isApprovalInterrupt(value: unknown): value is CountersignApprovalInterrupt {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'countersign_approval';
}
