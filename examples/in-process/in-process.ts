/**
 * The README's in-process example, runnable and type-checked:
 *   npm run example:in-process
 * A gate on the embedded SQLite store (a temp file here), one tool, and the three
 * steps: propose what the model asked for, a person approves, dispatch through the gate.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DispatchOutcome, Gate, hmacKey, Keyring, loadPolicy } from '@countersign/core';
import { openSqliteStore } from '@countersign/store-sqlite';

const POLICY = `
version: 1
rules:
  - tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] } }
`;

export async function runInProcessExample(): Promise<{ first: DispatchOutcome; replay: DispatchOutcome; transfers: unknown[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-example-'));
  const store = openSqliteStore({ path: join(dir, 'countersign.sqlite') });
  const transfers: unknown[] = [];
  try {
    const gate = new Gate({
      ledger: store.ledger,
      audit: store.audit,
      policy: loadPolicy(POLICY, 'yaml'),
      // In a real service: keyringFromEnv() reads COUNTERSIGN_MASTER_SECRET (>= 32 bytes).
      keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),
      tools: {
        transfer: {
          definition: { name: 'transfer', description: 'Move money', inputSchema: { type: 'object' } },
          execute: async (args) => {
            transfers.push(args);
            return { ok: true };
          },
        },
      },
    });
    const runId = 'run-1';
    const sessionId = 'session-1';
    // What an OpenAI-style model response carries: the arguments as JSON text.
    const toolCall = { id: 'call_1', function: { name: 'transfer', arguments: '{"to":"alice","amount":500}' } };

    // 1. the model produced a tool call
    const proposed = await gate.propose({
      runId,
      sessionId,
      principal: 'user:42',
      callId: toolCall.id,
      toolName: toolCall.function.name,
      arguments: toolCall.function.arguments,
    });
    let token: string | undefined;
    if (proposed.status === 'approval_required') {
      // 2. a person decided (on your server; the approver's identity comes from your authentication)
      await gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId: proposed.requestId, decision: 'approve' });
      const issued = await gate.approvals.token(proposed.requestId);
      if (issued.ok) token = issued.token;
    }
    // 3. the one checkpoint: verify, consume once, run the LEDGER's arguments
    const first = await gate.dispatch({ runId, sessionId, principal: 'user:42', callId: toolCall.id, token });
    const replay = await gate.dispatch({ runId, sessionId, principal: 'user:42', callId: toolCall.id, token });
    return { first, replay, transfers };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run directly (not imported by the test): print what happened.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { first, replay, transfers } = await runInProcessExample();
  const describe = (o: DispatchOutcome) => (o.status === 'not_approved' || o.status === 'denied' ? `${o.status} (${o.reason})` : o.status);
  console.log(`first dispatch: ${describe(first)}`);
  console.log(`replay:         ${describe(replay)}`);
  console.log(`transfers made: ${JSON.stringify(transfers)}`);
}
