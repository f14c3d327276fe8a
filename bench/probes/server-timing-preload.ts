/**
 * Preloaded into the HTTP bench's server child by bench/probes/profile-latency.ts (`--import`):
 * the server's own wall time per request (arrival → response finished), its COMMITs'
 * wall time and its CPU per request, reported and reset on the IPC message `timing`.
 * What the client sees beyond the in-server time is the network and the client.
 */
import { Server } from 'node:http';
import { DatabaseSync } from 'node:sqlite';

const totals = { requests: 0, requestMs: 0, commits: 0, commitMs: 0, cpu: process.cpuUsage() };
const emit = Server.prototype.emit;
Server.prototype.emit = function (this: Server, event: string | symbol, ...args: [unknown, ...unknown[]]): boolean {
  if (event === 'request') {
    const started = performance.now();
    (args[1] as NodeJS.EventEmitter).once('finish', () => {
      totals.requests++;
      totals.requestMs += performance.now() - started;
    });
  }
  return Reflect.apply(emit, this, [event, ...args]) as boolean;
} as typeof emit;
const exec = DatabaseSync.prototype.exec;
DatabaseSync.prototype.exec = function (this: DatabaseSync, sql: string): void {
  const started = performance.now();
  try {
    exec.call(this, sql);
  } finally {
    if (sql === 'COMMIT') {
      totals.commits++;
      totals.commitMs += performance.now() - started;
    }
  }
};
process.on('message', (message) => {
  if (message !== 'timing') return;
  const cpu = process.cpuUsage(totals.cpu);
  const per = Math.max(1, totals.requests);
  process.send?.({
    timing: {
      requests: totals.requests,
      inServerUs: (totals.requestMs * 1000) / per,
      commitUs: (totals.commitMs * 1000) / Math.max(1, totals.commits),
      commitsPerRequest: totals.commits / per,
      cpuUs: (cpu.user + cpu.system) / per,
    },
  });
  Object.assign(totals, { requests: 0, requestMs: 0, commits: 0, commitMs: 0, cpu: process.cpuUsage() });
});
