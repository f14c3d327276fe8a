import type { AuditRecord } from '../../audit/types.ts';
import { verifyDecisionRecord } from '../../token/decision-record.ts';
import type { Keyring } from '../../token/keyring.ts';

export interface DecisionEvidenceProblem {
  seq: number;
  reason: string;
}

/**
 * Checks every `decision` record of an audit trail against its signed decision record:
 * the signature holds, and the signed claims are the record's own (request, proposal,
 * call, tool, argument digest, approver, decision, time). The hash chain proves the
 * trail was not edited; this proves each decision was made by the service holding the
 * key, about exactly the call the record names.
 */
export function checkDecisionEvidence(records: Iterable<AuditRecord>, keyring: Keyring): DecisionEvidenceProblem[] {
  const problems: DecisionEvidenceProblem[] = [];
  for (const record of records) {
    if (record.type !== 'decision') continue;
    const detail = record.detail ?? {};
    const checked = verifyDecisionRecord(detail.record, keyring);
    if (!checked.ok) {
      problems.push({ seq: record.seq, reason: `${checked.reason}: ${checked.message}` });
      continue;
    }
    const c = checked.claims;
    const mismatched = (
      [
        ['requestId', c.req, record.requestId],
        ['proposalId', c.prop, record.proposalId],
        ['runId', c.run, record.runId],
        ['sessionId', c.sid, record.sessionId],
        ['callId', c.call, record.callId],
        ['toolName', c.tool, record.toolName],
        ['argsDigest', c.args, record.argsDigest],
        ['actor', c.apr, record.actor],
        ['decision', c.dec, detail.decision],
        ['at', c.at, record.at],
      ] as const
    ).find(([, signed, recorded]) => signed !== recorded);
    if (mismatched !== undefined) problems.push({ seq: record.seq, reason: `signed ${mismatched[0]} differs from the record` });
  }
  return problems;
}
