// @countersign/dbos installed alone with DBOS: a workflow wrapper on an in-process gate, and the
// notifier that wakes waiting workflows. Running a workflow needs DBOS's Postgres (the repository's example).
import { createGate, hmacKey, Keyring, loadPolicy, memoryStore } from '@countersign/core';
import { type CountersignWorkflow, countersignWorkflow, decisionTopic, notifyWorkflows } from '@countersign/dbos';
import { DBOS } from '@dbos-inc/dbos-sdk';

const gate = createGate({
  store: memoryStore(),
  policy: loadPolicy('version: 1\nrules:\n  - tool: transfer\n    verdict: approve\n    approval: { approvers: { roles: [finance] } }\n', 'yaml'),
  keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),
  tools: { transfer: { definition: { name: 'transfer', description: 'Move money', inputSchema: { type: 'object' } }, execute: () => undefined } },
});
const cs: CountersignWorkflow = countersignWorkflow({ port: gate.port({ id: 'payments-worker' }) });
const stop = notifyWorkflows(gate.events, (id, message, topic, key) => DBOS.send(id, message, topic, key));
stop();
console.log(`dbos: ${typeof cs.runCall} runCall, decisions on ${decisionTopic('request-1')}`);
