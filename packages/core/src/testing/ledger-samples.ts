import { sha256Hex } from '../digest.ts';
import type { NewApprovalRequest, ProposalInput } from '../ledger/types.ts';

// Sample ledger records for the conformance suites.

export const SAMPLE_T0 = Date.UTC(2026, 0, 1);
let counter = 0;
/** Ids unique across runs, so suites can share a persistent database. */
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export function sampleProposal(overrides: Partial<ProposalInput> = {}): ProposalInput {
  const canonicalArgs = overrides.canonicalArgs ?? '{"amount":10,"to":"alice"}';
  return {
    proposalId: uid('prop'),
    runId: uid('run'),
    sessionId: 'session-1',
    principal: 'user:42',
    agent: 'agent-a',
    callId: uid('call'),
    toolName: 'transfer',
    canonicalArgs,
    argsDigest: sha256Hex(canonicalArgs),
    responseRef: 'resp-1',
    createdAt: SAMPLE_T0,
    ...overrides,
  };
}

export function sampleRequest(proposalId: string, overrides: Partial<NewApprovalRequest> = {}): NewApprovalRequest {
  return {
    requestId: uid('req'),
    proposalId,
    createdAt: SAMPLE_T0,
    expiresAt: SAMPLE_T0 + 60_000,
    requiredApprovals: 1,
    eligible: { roles: ['approver'] },
    ruleId: 'rule-1',
    ...overrides,
  };
}

/**
 * Tries to edit a record a store handed out. Stores either hand out copies (the edit
 * lands on the copy) or sealed records (frozen: the edit throws a TypeError); both are
 * fine, as long as the store's own record never changes, which the caller checks next.
 */
export function tryToEdit(edit: () => void): void {
  try {
    edit();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
}
