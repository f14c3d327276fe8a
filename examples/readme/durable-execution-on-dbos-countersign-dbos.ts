import { createGate, keyringFromEnv, loadPolicyFile } from '@countersign/core';
import { clientSender, countersignWorkflow, notifyWorkflows } from '@countersign/dbos';
import { openPostgresStore } from '@countersign/store-postgres';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';

const systemDatabaseUrl = process.env.DBOS_SYSTEM_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/payments_dbos';
// The ledger outlives every worker: a call approved before a crash runs once after it.
const store = await openPostgresStore({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/payments', schema: 'countersign' });
const gate = createGate({
  store,
  policy: await loadPolicyFile('policy.yaml'),
  keyring: keyringFromEnv(),                     // the same master secret in every worker
  tools: { transfer: { definition: { name: 'transfer', description: 'Move money', inputSchema: { type: 'object' } }, execute: () => undefined } },
});
const cs = countersignWorkflow({ port: gate.port({ id: 'payments-worker' }) });
const bank = { transfer: async (args: unknown, options: { idempotencyKey: string }) => ({ ok: true, args, ...options }) };   // your tool

const payAlice = DBOS.registerWorkflow(
  async (amount: number) => {
    const [proposed] = await cs.propose({ sessionId: 'session-1', principal: 'user:42', toolCalls: [{ id: 'call-1', name: 'transfer', arguments: { to: 'alice', amount } }] });
    if (proposed === undefined) throw new Error('nothing proposed');
    // waits (DBOS.recv) until someone decides; runs once, with the ledger's arguments
    return cs.runCall(proposed, async (args, grant) => bank.transfer(args, { idempotencyKey: grant.proposalId }));
  },
  { name: 'pay-alice' },
);
DBOS.setConfig({ name: 'payments', systemDatabaseUrl });
await DBOS.launch();
// approval service: wake the waiting workflow when someone decides
notifyWorkflows(gate.events, clientSender(await DBOSClient.create({ systemDatabaseUrl })));
const handle = await DBOS.startWorkflow(payAlice)(2500);
console.log(await handle.getResult());
