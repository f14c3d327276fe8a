// A DBOS worker process for the crash tests (run with --conditions=countersign-source).
// It launches DBOS (which recovers this executor's pending workflows), starts the workflow
// named by RUN_ID when START=1, and prints one JSON line per thing the test waits for.
// HANG=in-tool stops inside the tool (after it logged its start); HANG=after-token stops
// between minting the token and authorize: the test SIGKILLs the process there.
import { appendFileSync } from 'node:fs';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { countersignWorkflow } from '../countersign-workflow.ts';
import { openWorkerGate, WORKER_AGENT } from './worker-gate.ts';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`crash-worker needs ${name}`);
  return value;
};
const runId = env('RUN_ID');
const toolLog = env('TOOL_LOG');
const hang = process.env.HANG ?? '';
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const forever = () => new Promise<never>(() => {});

const { gate } = await openWorkerGate(env('PG_URL'), env('GATE_SCHEMA'), env('MASTER_HEX'));
// A long poll: in these tests the wake-up must come from the approval service's notification.
const cs = countersignWorkflow({ port: gate.port(WORKER_AGENT), pollIntervalMs: Number(process.env.POLL_MS ?? 60_000) });

/** The side effect the tests count: one line per start of the tool, from whichever process. */
async function transfer(args: unknown): Promise<{ transferred: unknown }> {
  appendFileSync(toolLog, `${JSON.stringify({ pid: process.pid, args })}\n`);
  if (hang === 'in-tool') {
    print({ at: 'in-tool' });
    return forever();
  }
  return { transferred: (args as { amount: unknown }).amount };
}

async function agentRun(flow: 'run-call' | 'steps'): Promise<unknown> {
  const [proposed] = await cs.propose({
    sessionId: 'session-1',
    principal: 'user:42',
    toolCalls: [{ id: 'call-1', name: 'transfer', arguments: { amount: 2500, to: 'alice' } }],
  });
  print({ at: 'proposed', proposed });
  if (proposed === undefined) throw new Error('nothing proposed');
  if (flow === 'run-call') return cs.runCall(proposed, transfer);
  // The same flow step by step, to stop between the token and authorize.
  if (proposed.status !== 'approval_required') return proposed;
  const waited = await cs.awaitApproval(proposed);
  if (waited.status !== 'approved') return waited;
  const issued = await cs.token(waited.requestId);
  print({ at: 'token', issued });
  if (hang === 'after-token') return forever();
  const authorization = await cs.authorize({ proposalId: waited.proposalId, token: issued.ok ? issued.token : undefined });
  if (authorization.outcome.status !== 'authorized') return { authorize: authorization.outcome, token: issued };
  const ran = await cs.execute({ ...authorization, outcome: authorization.outcome }, transfer);
  if (ran.status === 'succeeded') await cs.complete(authorization.outcome.grant, { status: 'succeeded', result: ran.result });
  return { ran, token: issued };
}

const workflow = DBOS.registerWorkflow(agentRun, { name: 'countersign-crash-test' });
DBOS.setConfig({
  name: 'countersign-dbos-test',
  systemDatabaseUrl: env('DBOS_SYSTEM_URL'),
  systemDatabaseSchemaName: env('DBOS_SYSTEM_SCHEMA'),
  applicationVersion: 'countersign-crash-test',
  runAdminServer: false,
  logLevel: 'error',
});
await DBOS.launch();
print({ at: 'launched' });
if (process.env.START === '1') await DBOS.startWorkflow(workflow, { workflowID: runId })((process.env.FLOW ?? 'run-call') as 'run-call' | 'steps');
// The workflow runs in this process, but its handle reads the result by polling the system
// database (once a second by default): a short poll hands the result to the test as it lands.
const result = await DBOS.retrieveWorkflow(runId).getResult({ pollingIntervalMs: 25 });
print({ at: 'result', result });
await DBOS.shutdown();
process.exit(0);
