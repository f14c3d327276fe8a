/**
 * The README's in-process example, runnable and type-checked:
 *   npm run example:in-process
 * A gate on the embedded SQLite store (a temp file here), one tool, and the three
 * steps: propose what the model asked for (and look at the outcome), a person
 * approves, dispatch through the gate by the proposal id propose returned.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DispatchOutcome, Gate, hmacKey, Keyring, loadPolicy, type ProposeOutcome } from '@countersign/core';
import { openSqliteStore } from '@countersign/store-sqlite';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const POLICY = `
version: 1
rules:
  - tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] } }
`;

export interface ExampleResult {
  proposed: ProposeOutcome;
  /** Absent when the propose outcome said the call must not run (rejected or denied). */
  first?: DispatchOutcome | undefined;
  replay?: DispatchOutcome | undefined;
  transfers: unknown[];
}

/** `beforePropose` lets the test put something in the ledger first (another agent squatting the run). */
export async function runInProcessExample(options: { beforePropose?: (gate: Gate) => Promise<void> } = {}): Promise<ExampleResult> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-example-'));
  const store = openSqliteStore({ path: join(dir, 'countersign.sqlite') });
  const transfers: unknown[] = [];
  try {
    const gate = new Gate({
      definitions: new MemoryDefinitionStore(),
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
    await options.beforePropose?.(gate);
    // What an OpenAI-style model response carries: the arguments as JSON text.
    const toolCall = { id: 'call_1', function: { name: 'transfer', arguments: '{"to":"alice","amount":500}' } };

    // 1. the model produced a tool call: record it (the gate keeps its own copy from now on)
    const proposed = await gate.propose({
      runId: 'run-1',
      sessionId: 'session-1',
      principal: 'user:42',
      callId: toolCall.id,
      toolName: toolCall.function.name,
      arguments: toolCall.function.arguments,
    });
    // Look at the outcome before anything runs: a rejected call (invalid arguments, a
    // conflicting call id, a run owned by another agent) or a denied one stops here.
    if (proposed.status === 'rejected' || proposed.status === 'denied') return { proposed, transfers };

    let token: string | undefined;
    if (proposed.status === 'approval_required') {
      // 2. a person decided (on your server; the approver's identity comes from your authentication)
      await gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId: proposed.requestId, decision: 'approve' });
      const issued = await gate.approvals.token(proposed.requestId);
      if (issued.ok) token = issued.token;
    }
    // 3. the one checkpoint: the proposal id propose returned selects the call; verify,
    //    consume once, run the LEDGER's arguments
    const first = await gate.dispatch({ proposalId: proposed.proposalId, token });
    const replay = await gate.dispatch({ proposalId: proposed.proposalId, token });
    return { proposed, first, replay, transfers };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run directly (not imported by the test): print what happened.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { proposed, first, replay, transfers } = await runInProcessExample();
  const describe = (o: DispatchOutcome | ProposeOutcome | undefined) =>
    o === undefined ? 'not attempted' : 'reason' in o ? `${o.status} (${o.reason})` : o.status;
  console.log(`propose:        ${describe(proposed)}`);
  console.log(`first dispatch: ${describe(first)}`);
  console.log(`replay:         ${describe(replay)}`);
  console.log(`transfers made: ${JSON.stringify(transfers)}`);
}
