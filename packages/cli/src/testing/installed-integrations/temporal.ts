// @countersign/temporal installed alone with Temporal's packages: the activities and the
// interceptor a worker registers, and the workflow entry. Running them needs a Temporal server.
import { createGate, hmacKey, Keyring, loadPolicy, memoryStore } from '@countersign/core';
import { countersignActivityInterceptors, createCountersignActivities } from '@countersign/temporal';
import { countersignWorkflow } from '@countersign/temporal/workflow';
import type { WorkerOptions } from '@temporalio/worker';

const gate = createGate({
  store: memoryStore(),
  policy: loadPolicy('version: 1\nrules:\n  - tool: transfer\n    verdict: approve\n    approval: { approvers: { roles: [finance] } }\n', 'yaml'),
  keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),
  tools: { transfer: { definition: { name: 'transfer', description: 'Move money', inputSchema: { type: 'object' } }, execute: () => undefined } },
});
const port = gate.port({ id: 'temporal-worker' });
const worker: Pick<WorkerOptions, 'activities' | 'interceptors'> = {
  activities: createCountersignActivities(port),
  interceptors: { activity: [countersignActivityInterceptors(port)] },
};
console.log(`temporal: activities ${Object.keys(worker.activities ?? {}).sort().join(', ')}; workflow helper ${typeof countersignWorkflow}`);
