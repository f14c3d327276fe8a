/**
 * A DBOS workflow whose tool call waits for a person's approval, durably:
 *   npm run example:dbos
 * Needs the local PostgreSQL (postgres://postgres@127.0.0.1:5432, or COUNTERSIGN_TEST_PG_URL):
 * DBOS keeps its workflow history in system tables it creates (in a schema of that database,
 * a fresh one per run here, dropped at the end). The gate is on the embedded SQLite store; no network, no model.
 *
 * The workflow proposes the model's call (a step), waits on DBOS.recv until the approval
 * service notifies it or the request expires, authorizes (a step: the approval is spent,
 * once), runs the tool (a step) and completes (a step). The run id is the workflow id.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Gate, hmacKey, Keyring, loadPolicy } from '@countersign/core';
import { countersignWorkflow, decisionTopic, notifyWorkflows } from '@countersign/dbos';
import { openSqliteStore } from '@countersign/store-sqlite';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { Client } from 'pg';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const PG_URL = process.env.COUNTERSIGN_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const POLICY = `
version: 1
rules:
  - tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] }, ttlSeconds: 600 }
`;

export async function runDbosExample() {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-dbos-example-'));
  const store = openSqliteStore({ path: join(dir, 'countersign.sqlite') });
  const systemSchema = `countersign_dbos_example_${randomBytes(4).toString('hex')}`;
  const transfers: unknown[] = [];
  const steps: Array<{ step: string; outcome: string }> = [];
  try {
    const gate = new Gate({
      definitions: new MemoryDefinitionStore(),
      ledger: store.ledger,
      audit: store.audit,
      policy: loadPolicy(POLICY, 'yaml'),
      // keyringFromEnv() in a real service: the same master secret in every worker, so a token
      // minted before a crash verifies after it (the run key is derived from the workflow id).
      keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),
      tools: { transfer: { definition: { name: 'transfer', description: 'Move money', inputSchema: { type: 'object' } }, execute: () => undefined } },
    });
    const cs = countersignWorkflow({ port: gate.port({ id: 'payments-worker' }) });

    // The workflow: what the model asked for, then the one call through Countersign.
    const payAlice = DBOS.registerWorkflow(
      async (amount: number) => {
        const [proposed] = await cs.propose({ sessionId: 'session-1', principal: 'user:42', toolCalls: [{ id: 'call-1', name: 'transfer', arguments: { to: 'alice', amount } }] });
        if (proposed === undefined) throw new Error('nothing proposed');
        return cs.runCall(proposed, async (args) => {
          transfers.push(args); // your tool: pass the proposal id to its backend as an idempotency key
          return { ok: true };
        });
      },
      { name: 'countersign-example-pay-alice' },
    );
    DBOS.setConfig({ name: 'countersign-dbos-example', systemDatabaseUrl: PG_URL, systemDatabaseSchemaName: systemSchema, runAdminServer: false, logLevel: 'error' });
    await DBOS.launch();
    // The approval service side: wake the waiting workflow when someone decides.
    const stopNotifier = notifyWorkflows(gate.events, (id, message, topic, key) => DBOS.send(id, message, topic, key));

    const runId = `run-${randomUUID()}`;
    const requested = new Promise<string>((resolve) => {
      const stop = gate.events.subscribe((e) => {
        if (e.type !== 'approval_requested' || e.runId !== runId) return;
        resolve(e.requestId);
        stop();
      });
    });
    const requestStatus = async () => {
      const view = await gate.approvals.view(await requested);
      return view.ok ? view.view.status : view.reason;
    };
    const handle = await DBOS.startWorkflow(payAlice, { workflowID: runId })(2500);
    const requestId = await requested;
    steps.push({ step: 'workflow proposes transfer 2500 to alice', outcome: 'waiting for approval (DBOS.recv until the request expires)' });

    // Anyone who can write to the system database can send the workflow a message: it is a wake-up, not evidence.
    await DBOS.send(runId, { type: 'countersign_decision', requestId, approved: true }, decisionTopic(requestId));
    await new Promise((resolve) => setTimeout(resolve, 500));
    steps.push({ step: 'forged "approved" message to the workflow', outcome: `ran ${transfers.length}×, request ${await requestStatus()}` });

    await gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId, decision: 'approve' });
    const result = await handle.getResult();
    steps.push({ step: 'fiona approves in Countersign', outcome: `${result.status}, ran ${transfers.length}×` });

    const replay = await gate.port({ id: 'payments-worker' }).authorize({ proposalId: result.proposalId as string });
    steps.push({ step: 'authorize the same call again', outcome: 'reason' in replay ? `${replay.status} (${replay.reason})` : replay.status });
    stopNotifier();
    return { steps, transfers, result };
  } finally {
    await DBOS.shutdown({ deregister: true });
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    const admin = new Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${systemSchema}" CASCADE`).finally(() => admin.end());
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { steps } = await runDbosExample();
  for (const { step, outcome } of steps) console.log(`${step.padEnd(45)} → ${outcome}`);
}
