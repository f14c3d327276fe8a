/** Prefix of the `DBOS.recv` topic a workflow waits on for one approval request. */
export const DECISION_TOPIC_PREFIX = 'countersign:decision:';

/**
 * The topic that wakes the workflow waiting on `requestId`. One topic per request, so a
 * wake-up for one request is never consumed by the wait for another.
 */
export function decisionTopic(requestId: string): string {
  return `${DECISION_TOPIC_PREFIX}${requestId}`;
}

/**
 * What the approval service sends to a waiting workflow. It is a wake-up, never evidence:
 * the workflow re-reads the request's status from Countersign and ignores the content.
 */
export interface DecisionNotice {
  type: 'countersign_decision';
  requestId: string;
}
