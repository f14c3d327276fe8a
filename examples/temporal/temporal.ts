/**
 * Temporal with Countersign. Needs a Temporal server:
 *   temporal server start-dev          # in another terminal (Temporal CLI)
 *   TEMPORAL_ADDRESS=localhost:7233 npm run example:temporal
 *
 * A worker runs `paymentWorkflow`: the transfer is proposed (an activity), the workflow
 * waits for the decision signal, a forged early signal wakes it without effect (the
 * request is still pending in Countersign), then the approver's decision signals it and
 * the guarded `transfer` activity runs once with the ledger's arguments.
 * Without TEMPORAL_ADDRESS it says so and exits 0.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Gate, hmacKey, Keyring, loadPolicy, MemoryAuditLog, MemoryLedger } from '@countersign/core';
import { clientSignalSender, countersignActivityInterceptors, createCountersignActivities, DECISION_SIGNAL, notifyTemporalOnDecision } from '@countersign/temporal';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const POLICY = `
version: 1
rules:
  - tool: transfer
    verdict: approve
    approval: { approvers: { approvers: [fiona] }, ttlSeconds: 3600 }
`;

export async function runTemporalExample(address: string) {
  const gate = new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger: new MemoryLedger(), // openSqliteStore / PostgreSQL in a real service: the ledger must outlive the worker
    audit: new MemoryAuditLog(),
    policy: loadPolicy(POLICY, 'yaml'),
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]), // keyringFromEnv() in a real service
    // The tool itself runs in the `transfer` activity below, through the interceptor.
    tools: { transfer: { definition: { name: 'transfer', description: 'Move money (example)', inputSchema: { type: 'object' } }, execute: () => undefined } },
    trustOnFirstUse: true,
  });
  const port = gate.port({ id: 'temporal-worker' });
  const ran: unknown[] = [];
  const client = new Client({ connection: await Connection.connect({ address }) });
  const stopNotifier = notifyTemporalOnDecision(gate.events, clientSignalSender(client), (error) => console.error('signal failed:', error));
  const { code } = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
    webpackConfigHook: (config) => ({ ...config, resolve: { ...config.resolve, conditionNames: ['countersign-source', '...'] } }),
  });
  const taskQueue = 'countersign-example';
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    taskQueue,
    workflowBundle: { code },
    activities: {
      ...createCountersignActivities(port),
      transfer: async (args: { amount: number; to: string }) => {
        ran.push(args);
        return { transferred: args.amount, to: args.to };
      },
    },
    interceptors: { activity: [countersignActivityInterceptors(port)] },
  });
  const workflowId = `payment-${randomUUID()}`; // = the Countersign run id
  const result = await worker.runUntil(async () => {
    const handle = await client.workflow.start('paymentWorkflow', { taskQueue, workflowId, args: [{ principal: 'user:42', amount: 2500, to: 'alice' }] });
    console.log(`started ${workflowId}; waiting for the proposal`);
    let requestId: string | undefined;
    while (requestId === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const pending = await gate.approvals.listFor({ id: 'fiona' }, 'pending');
      if (pending.ok) requestId = pending.views.find((v) => v.proposal.runId === workflowId)?.request.requestId;
    }
    console.log(`approval request ${requestId} is pending`);
    await handle.signal(DECISION_SIGNAL, { requestId, decision: 'approve' });
    console.log('forged "approve" signal sent: the workflow wakes, Countersign says pending, it waits on');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    console.log(`tool runs so far: ${ran.length}`);
    await gate.approvals.decide({ id: 'fiona' }, { requestId, decision: 'approve' });
    console.log('fiona approved in Countersign; the notifier signals the workflow');
    return handle.result();
  });
  stopNotifier();
  console.log(`workflow result: ${JSON.stringify(result)}`);
  console.log(`transfer ran ${ran.length}× with ${JSON.stringify(ran[0])}`);
  await client.connection.close();
  return { result, ran };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const address = process.env.TEMPORAL_ADDRESS;
  if (address === undefined || address === '') {
    console.log('example:temporal needs a Temporal server: start one (e.g. `temporal server start-dev`) and set TEMPORAL_ADDRESS=localhost:7233.');
    console.log('Nothing was run. The offline tests (npx vitest run packages/integrations/temporal) cover the same flow without a server.');
    process.exit(0);
  }
  await runTemporalExample(address);
}
