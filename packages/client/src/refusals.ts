import type { AuthorizeOutcome, CompleteOutcome, ModelResponse, ProposeOutcome } from '@countersign/core';
import type { ProviderOutputOutcome, RefusalReportOutcome, RegisterToolsOutcome, RelayCheckOutcome, ToolAdmission } from '@countersign/core/gate';
import type { Answer } from './http.ts';
import { unexpected } from './http.ts';

/*
 * The server answers some refusals with an HTTP error (a 404 for a run or call that is
 * not this agent's, a 403 for a principal it may not act for, a 400 for a body it will
 * not read). A port answers refusals with outcomes, so these become the outcome the
 * in-process gate gives for the same request; anything else is thrown as a transport error.
 */

type Refused = Answer & { ok: false };

// Codes the server gives a body whose values (not its shape) it refuses.
const ARGUMENT_CODES = new Set(['invalid_json_value', 'nesting_too_deep', 'payload_too_large', 'invalid_arguments']);

export function proposeRefused(response: ModelResponse, answer: Refused): ProposeOutcome[] {
  const reason = proposeReason(answer);
  return response.toolCalls.map(() => ({ status: 'rejected', reason, message: answer.message }));
}

function proposeReason(answer: Refused): Extract<ProposeOutcome, { status: 'rejected' }>['reason'] {
  if (answer.status === 404 && answer.code === 'not_found') return 'run_owned_by_other_agent';
  if (answer.status === 403 && answer.code === 'forbidden') return 'principal_not_allowed';
  if (answer.status === 400 || answer.status === 413) return ARGUMENT_CODES.has(answer.code) ? 'invalid_arguments' : 'invalid_call';
  throw unexpected(answer);
}

export function authorizeRefused(proposalId: string | undefined, answer: Refused): AuthorizeOutcome {
  // The same answer whether the call does not exist or is another agent's.
  if (answer.status === 404 && answer.code === 'not_found') {
    return { status: 'not_approved', reason: 'unknown_call', message: answer.message, proposalId };
  }
  if (answer.status === 400 || answer.status === 413) {
    const reason = ARGUMENT_CODES.has(answer.code) ? 'invalid_arguments' : 'malformed';
    return { status: 'not_approved', reason, message: `${answer.code}: ${answer.message}`, proposalId };
  }
  throw unexpected(answer);
}

export function completeRefused(answer: Refused): CompleteOutcome {
  if (answer.status === 404 && answer.code === 'not_found') return { ok: false, reason: 'unknown_grant', message: answer.message };
  if (answer.status === 400 || answer.status === 413) return { ok: false, reason: 'invalid_completion', message: `${answer.code}: ${answer.message}` };
  if (answer.status === 503 && answer.code === 'store_unavailable') return { ok: false, reason: 'store_unavailable', message: answer.message };
  throw unexpected(answer);
}

/** For the reads (token, call status, request status): not found and store outages are outcomes. */
export function readRefused(answer: Refused): { ok: false; reason: 'not_found' | 'store_unavailable'; message: string } {
  if (answer.status === 404 && answer.code === 'not_found') return { ok: false, reason: 'not_found', message: answer.message };
  if (answer.status === 503 && answer.code === 'store_unavailable') return { ok: false, reason: 'store_unavailable', message: answer.message };
  throw unexpected(answer);
}

export function registerRefused(answer: Refused): RegisterToolsOutcome {
  if (answer.status === 400 || answer.status === 413) return { ok: false, reason: 'invalid_definition', message: `${answer.code}: ${answer.message}` };
  if (answer.status === 409 && (answer.code === 'registered_by_other_agent' || answer.code === 'tool_defined_in_process')) {
    return { ok: false, reason: answer.code, message: answer.message };
  }
  if (answer.status === 503 && answer.code === 'store_unavailable') return { ok: false, reason: 'store_unavailable', message: answer.message };
  throw unexpected(answer);
}

export function admissionRefused(toolName: string, answer: Refused): ToolAdmission {
  // The same answer whether no tool has the name or another agent registered it.
  if (answer.status === 404 && answer.code === 'not_found') return { ok: false, toolName, reason: 'unknown_tool', message: answer.message };
  if (answer.status === 503 && answer.code === 'store_unavailable') return { ok: false, toolName, reason: 'store_unavailable', message: answer.message };
  throw unexpected(answer);
}

/** For the relay check: a body the server will not read and store outages are outcomes. */
export function relayRefused(answer: Refused): RelayCheckOutcome {
  if (answer.status === 400 || answer.status === 413) return { ok: false, reason: 'invalid_request', message: `${answer.code}: ${answer.message}` };
  if (answer.status === 503 && answer.code === 'store_unavailable') return { ok: false, reason: 'store_unavailable', message: answer.message };
  throw unexpected(answer);
}

/** For a refusal report: another agent's run, a body the server will not read and store outages are outcomes. */
export function reportRefused(answer: Refused): RefusalReportOutcome {
  if (answer.status === 404 && answer.code === 'not_found') return { ok: false, reason: 'not_found', message: answer.message };
  if (answer.status === 400 || answer.status === 413) return { ok: false, reason: 'invalid_request', message: `${answer.code}: ${answer.message}` };
  if (answer.status === 503 && answer.code === 'store_unavailable') return { ok: false, reason: 'store_unavailable', message: answer.message };
  throw unexpected(answer);
}

/** For a provider output: no such call of the provider, another output first, a bad body and store outages are outcomes. */
export function providerOutputRefused(answer: Refused): ProviderOutputOutcome {
  if (answer.status === 404 && answer.code === 'not_found') return { ok: false, reason: 'not_found', message: answer.message };
  if (answer.status === 409 && answer.code === 'result_conflict') return { ok: false, reason: 'result_conflict', message: answer.message };
  if (answer.status === 400 || answer.status === 413) return { ok: false, reason: 'invalid_request', message: `${answer.code}: ${answer.message}` };
  if (answer.status === 503 && answer.code === 'store_unavailable') return { ok: false, reason: 'store_unavailable', message: answer.message };
  throw unexpected(answer);
}
