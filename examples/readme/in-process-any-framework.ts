import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate, hmacKey, Keyring, loadPolicy } from '@countersign/core';
import { openSqliteStore } from '@countersign/store-sqlite';

const POLICY = `
version: 1
rules:
  - tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] } }
`;
const transfers: unknown[] = [];
const dir = mkdtempSync(join(tmpdir(), 'countersign-'));   // a fresh store per run: this demo's call ids repeat
const store = openSqliteStore({ path: join(dir, 'countersign.sqlite') });
const gate = createGate({
  store,                                     // ledger, audit log and tool definitions of one store (memoryStore() for memory)
  policy: loadPolicy(POLICY, 'yaml'),        // or: await loadPolicyFile('policy.yaml')
  keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),  // a real service: keyringFromEnv() (COUNTERSIGN_MASTER_SECRET, >= 32 bytes)
  tools: {
    transfer: {
      definition: { name: 'transfer', description: 'Move money', inputSchema: { type: 'object' } },
      execute: async (args) => {
        transfers.push(args);                // your bank.transfer(args)
        return { ok: true };
      },
    },
  },
});

// 1. the model produced a tool call (OpenAI-style: the arguments as JSON text)
const toolCall = { id: 'call_1', function: { name: 'transfer', arguments: '{"to":"alice","amount":500}' } };
const proposed = await gate.propose({
  runId: 'run-1', sessionId: 'session-1', principal: 'user:42',
  callId: toolCall.id, toolName: toolCall.function.name, arguments: toolCall.function.arguments,
});
console.log(`propose:        ${proposed.status}`);
// Look before anything runs: rejected (invalid arguments, a conflicting call id, a run owned by
// another agent) or denied stops here.
if (proposed.status === 'rejected' || proposed.status === 'denied') throw new Error(`not proposed: ${proposed.reason}`);
let token: string | undefined;
if (proposed.status === 'approval_required') {
  // 2. a person decided (on your server; the approver's identity comes from your authentication)
  await gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId: proposed.requestId, decision: 'approve' });
  const issued = await gate.approvals.token(proposed.requestId);
  if (issued.ok) token = issued.token;
}
// 3. the one checkpoint, selected by the id propose returned: verify, consume once, run the LEDGER's arguments
const first = await gate.dispatch({ proposalId: proposed.proposalId, token });
console.log(`first dispatch: ${first.status}`);
const replay = await gate.dispatch({ proposalId: proposed.proposalId, token });   // the same approval again
console.log(`replay:         ${replay.status}${replay.status === 'not_approved' ? ` (${replay.reason})` : ''}`);
console.log(`transfers made: ${JSON.stringify(transfers)}`);
await store.close();
rmSync(dir, { recursive: true });           // a real service keeps its store, and with it the audit trail
