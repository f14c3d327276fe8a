// The gate both sides of the crash tests build on one Postgres schema: the worker process
// (its workflows) and the test process (the approval service). Same policy, same master key
// (unless a test hands the worker another one).
import { Gate, hmacKey, Keyring, loadPolicy } from '@countersign/core';
import { openPostgresStore, type PostgresStore } from '@countersign/store-postgres';

export const WORKER_AGENT = { id: 'dbos-worker' };
export const APPROVER = { id: 'fiona', roles: ['finance'] };
export const TEST_MASTER_HEX = '5a'.repeat(32);

const POLICY = `
version: 1
rules:
  - tool: transfer
    verdict: approve
    approval:
      approvers: { roles: [finance] }
      ttlSeconds: 600
`;

export async function openWorkerGate(pgUrl: string, schema: string, masterHex: string): Promise<{ gate: Gate; store: PostgresStore }> {
  const store = await openPostgresStore({ connectionString: pgUrl, schema, pool: { max: 4 } });
  const gate = new Gate({
    ledger: store.ledger,
    audit: store.audit,
    definitions: store.definitions,
    policy: loadPolicy(POLICY, 'yaml'),
    keyring: new Keyring([hmacKey('k1', Buffer.from(masterHex, 'hex'))]),
    tools: {
      transfer: {
        definition: { name: 'transfer', description: 'Move money', inputSchema: { type: 'object' } },
        // Never called: the workflow runs the tool itself, after authorize.
        execute: () => {
          throw new Error('transfer runs in the workflow');
        },
      },
    },
  });
  return { gate, store };
}
