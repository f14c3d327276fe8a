/**
 * The timing loop of the in-process profiling drivers (gate-profile, gateway-gate-profile):
 * `rounds` rounds, each set up untimed by `prepare`, then `ops` operations timed. Prints µs
 * per op: wall, process CPU (GC helper threads included), the main thread's CPU alone, and
 * the garbage collections that fell inside the timed loop. With `out`, the last round's CPU
 * profile (timed loop only) is written there for bench/probes/profile-summary.ts.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';

export interface ProfileRounds {
  /** What one op is, for the printed line. */
  what: string;
  ops: number;
  rounds: number;
  out?: string | undefined;
  /** Untimed setup of a round; returns the timed loop (all `ops` operations). */
  prepare: () => Promise<() => Promise<void>>;
}

export async function profileRounds(o: ProfileRounds): Promise<void> {
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
  const perOp = (us: number) => (us / o.ops).toFixed(2);
  for (let round = 0; round < o.rounds; round++) {
    const timedLoop = await o.prepare();
    const profiled = o.out !== undefined && round === o.rounds - 1;
    if (profiled) await session.post('Profiler.start');
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const threadBefore = process.threadCpuUsage();
    await timedLoop();
    const ended = performance.now();
    const cpu = process.cpuUsage(cpuBefore);
    const thread = process.threadCpuUsage(threadBefore);
    // The profile covers the loop only (stopped before the wait below, which would read as idle).
    if (profiled) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(o.out!, JSON.stringify(profile));
    }
    // GC entries are delivered after a turn or more: give the observer time to receive them.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const inLoop = gcEntries.filter((e) => e.startTime >= started && e.startTime < ended);
    const gcMs = inLoop.reduce((sum, e) => sum + e.duration, 0);
    console.log(
      `round ${round}: ${o.what} ${perOp((ended - started) * 1000)} µs/op wall, ${perOp(cpu.user + cpu.system)} µs/op CPU (main thread ${perOp(thread.user + thread.system)}), ${inLoop.length} GCs, ${perOp(gcMs * 1000)} µs/op paused${profiled ? ' (profiled)' : ''}`,
    );
  }
  gcObserver.disconnect();
  session.disconnect();
}
