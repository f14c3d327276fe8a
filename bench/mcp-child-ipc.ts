/**
 * The MCP rows' child processes (upstream server, gateway) and how the load generator
 * talks to them: each child reports `{ ready, ...info }` once listening, answers `cpu`
 * with its process CPU time, and exits on `stop`. Apart from the load generator, so the
 * SDK client's CPU is not charged to the servers and no two of them share an event loop.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';

/** The upstream's one tool, allowed by the gateway's bench policy. */
export const ECHO_TOOL = 'echo';
/** The gateway front's bearer token (loopback only, bench only). */
export const BENCH_GATEWAY_TOKEN = 'bench-gateway-token-0123456789abcdef0123';

/** Child side: report readiness, answer CPU (and durable commit) queries, stop on request. */
export function serveChildIpc(info: Record<string, unknown>, stop: () => Promise<void>, commits?: () => number | undefined): void {
  process.send!({ ready: true, ...info });
  process.on('message', (message) => {
    if (message === 'cpu') process.send!({ cpu: process.cpuUsage(), commits: commits?.() });
    if (message === 'stop') void stop().finally(() => process.exit(0));
  });
}

export interface ChildHandle<Info> {
  info: Info;
  /** The child's CPU time so far, in µs. */
  cpu(): Promise<number>;
  /** Its store's durable commits so far (a gateway on SQLite), read with the last `cpu()`; else undefined. */
  commits(): number | undefined;
  stop(): Promise<void>;
}

/** Parent side: forks `script` (a bench/ file) and waits for its `ready` message. */
export async function forkChild<Info>(script: string, args: readonly string[], flags: readonly string[] = []): Promise<{ ok: true; child: ChildHandle<Info> } | { ok: false; reason: string }> {
  const child: ChildProcess = fork(new URL(script, import.meta.url), [...args], {
    execArgv: ['--conditions=countersign-source', ...flags],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [first] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(() => [{ failed: `${script} exited` }])])) as [
    { ready?: true; failed?: string } & Info,
  ];
  if (first.failed !== undefined || first.ready !== true) {
    child.kill();
    return { ok: false, reason: first.failed ?? `${script} did not start` };
  }
  // One question at a time: answers are matched to questions by order.
  let queue = Promise.resolve(0);
  let commits: number | undefined;
  return {
    ok: true,
    child: {
      info: first,
      cpu: () => {
        queue = queue.then(async () => {
          child.send('cpu');
          const [answer] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage; commits?: number }];
          commits = answer.commits;
          return answer.cpu.user + answer.cpu.system;
        });
        return queue;
      },
      commits: () => commits,
      stop: async () => {
        child.send('stop');
        await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
      },
    },
  };
}
