/**
 * Profiles the in-memory dispatch alone (setup excluded):
 *   node --conditions=countersign-source bench/gate-profile.ts [200B|10KB] [ops] [out.cpuprofile]
 * Pre-approves `ops` calls (untimed), then dispatches each once and prints µs per dispatch:
 * wall, process CPU (what the bench's CPU clock counts, GC helper threads included), the main
 * thread's CPU alone, and the garbage collections seen during the loop (count and pause time).
 * With an output path, the last round's CPU profile (dispatch loop only) is written there;
 * `node bench/profile-summary.ts out.cpuprofile` prints its self and inclusive times by function.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { ARGUMENT_CASES } from './arguments.ts';
import { approveCalls, newGate } from './gate-cases.ts';

const label = (process.argv[2] ?? '200B').replace(/\s/g, '');
const ops = Number(process.argv[3] ?? 20_000);
const out = process.argv[4];
const arg = ARGUMENT_CASES.find((a) => a.label.replace(/\s/g, '') === label);
if (arg === undefined) throw new Error(`no argument case ${label}`);

const ROUNDS = Number(process.env.ROUNDS ?? 4);
// Entries arrive asynchronously, so each is kept with its start time and counted by the loop it fell in.
const gcEntries: { startTime: number; duration: number }[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcEntries.push({ startTime: entry.startTime, duration: entry.duration });
});
gcObserver.observe({ entryTypes: ['gc'] });

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 50 });
for (let round = 0; round < ROUNDS; round++) {
  const gate = newGate();
  const requests = (await approveCalls(gate, arg.args, ops)).map((a) => a.request);
  const profiled = out !== undefined && round === ROUNDS - 1;
  if (profiled) await session.post('Profiler.start');
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const threadBefore = process.threadCpuUsage();
  for (const request of requests) {
    const outcome = await gate.dispatch(request);
    if (outcome.status !== 'executed') throw new Error(`dispatch gave ${outcome.status}`);
  }
  const ended = performance.now();
  const us = ((ended - started) * 1000) / ops;
  const cpu = process.cpuUsage(cpuBefore);
  const thread = process.threadCpuUsage(threadBefore);
  const cpuUs = (cpu.user + cpu.system) / ops;
  const threadUs = (thread.user + thread.system) / ops;
  // GC entries are delivered after a turn or more: give the observer time to receive them.
  await new Promise((resolve) => setTimeout(resolve, 100));
  if (profiled) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(out, JSON.stringify(profile));
  }
  const inLoop = gcEntries.filter((e) => e.startTime >= started && e.startTime < ended);
  const gcMs = inLoop.reduce((sum, e) => sum + e.duration, 0);
  const gc = `${inLoop.length} GCs, ${((gcMs * 1000) / ops).toFixed(2)} µs/op paused`;
  console.log(
    `round ${round}: ${arg.label} dispatch ${us.toFixed(2)} µs/op wall, ${cpuUs.toFixed(2)} µs/op CPU (main thread ${threadUs.toFixed(2)}), ${gc}${profiled ? ' (profiled)' : ''}`,
  );
}
gcObserver.disconnect();
session.disconnect();
