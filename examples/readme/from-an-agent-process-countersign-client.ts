import { randomUUID } from 'node:crypto';
import { createClient } from '@countersign/client';

const gate = createClient({ baseUrl: process.env.COUNTERSIGN_URL ?? 'http://127.0.0.1:8787', token: process.env.COUNTERSIGN_AGENT_TOKEN ?? '' });
// The call as the model produced it: the service records it before anyone decides.
const call = { id: 'call-1', name: 'transfer', arguments: '{"amount": 2500, "to": "alice"}' };
const [proposed] = await gate.propose({ runId: randomUUID(), sessionId: 'session-1', principal: 'user:alice', toolCalls: [call] });
if (proposed === undefined || proposed.status === 'rejected' || proposed.status === 'denied') {
  throw new Error(`not run: ${proposed?.status} ${proposed?.reason}`);
}
let token: string | undefined;
if (proposed.status === 'approval_required') {
  console.log(`waiting for ${proposed.requestId}: ${gate.approvalPageUrl(proposed.requestId)}`);
  const decided = await gate.waitForDecision(proposed.requestId, { timeoutMs: 600_000 });
  // approved | denied | revoked | expired | edited | pending (timed out). edited: an approver replaced
  // the call; run decided.editedProposalId with the token of decided.editedRequestId instead.
  console.log(`decided: ${decided.ok ? decided.status : decided.reason}`);
  const issued = await gate.token(proposed.requestId);
  token = issued.ok ? issued.token : undefined;
}
const outcome = await gate.authorize({ proposalId: proposed.proposalId, token });
console.log(`authorize: ${outcome.status}`);
if (outcome.status === 'authorized') {
  const args = JSON.parse(outcome.grant.canonicalArgs); // the arguments the approver saw
  console.log(`ran transfer ${JSON.stringify(args)}`); // your tool runs here, on these arguments
  const done = await gate.complete(outcome.grant, { status: 'succeeded', result: { sent: args.amount } });
  console.log(`complete: ${done.ok ? 'ok' : done.reason}`);
}
