import { readFileSync } from 'node:fs';
import { Client } from 'pg';

/**
 * CPU (µs) used so far by the Postgres backends whose application_name is `applicationName`,
 * from /proc (user + system, in clock ticks of 10 ms). Backends that exited are not counted:
 * the pool keeps its connections for the length of a run. Undefined off this machine.
 */
export async function backendCpuUs(url: string, applicationName: string): Promise<number | undefined> {
  const probe = new Client({ connectionString: url });
  await probe.connect();
  try {
    const { rows } = await probe.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
    let ticks = 0;
    for (const { pid } of rows) {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks * 10_000;
  } catch {
    return undefined;
  } finally {
    await probe.end();
  }
}
