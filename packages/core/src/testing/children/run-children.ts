import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { withCompileCache } from './compile-cache.ts';

/**
 * Runs one Node process per argument list on `script` and starts them together:
 * each child prints `ready`, waits for `go` on stdin, does its work and prints one
 * JSON line as its result. Starting them together makes them actually race.
 */
export async function runChildren(script: string, argLists: string[][], timeoutMs = 60_000): Promise<unknown[]> {
  const children = argLists.map((args) =>
    spawn(process.execPath, ['--conditions=countersign-source', script, ...args], {
      env: withCompileCache(process.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  const timer = setTimeout(() => {
    for (const child of children) child.kill('SIGKILL');
  }, timeoutMs);
  try {
    const results = children.map(collect);
    await Promise.all(results.map((r) => r.ready));
    for (const child of children) child.stdin?.write('go\n');
    return await Promise.all(results.map((r) => r.result));
  } finally {
    clearTimeout(timer);
    // After a failure, do not leave the other children waiting for `go`.
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  }
}

function collect(child: ChildProcess): { ready: Promise<void>; result: Promise<unknown> } {
  const lines: string[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let markReady: () => void = () => {};
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    exited.then((code) => reject(new Error(`child exited (${code}) before ready: ${stderr}`)));
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line === 'ready') markReady();
    else lines.push(line);
  });
  const result = exited.then((code) => {
    const last = lines.at(-1);
    if (code !== 0 || last === undefined) throw new Error(`child exited with ${code}: ${stderr}`);
    return JSON.parse(last) as unknown;
  });
  // Both are awaited by runChildren; these handlers only keep an early failure of
  // one from being reported as unhandled while the other is the one awaited.
  ready.catch(() => {});
  result.catch(() => {});
  return { ready, result };
}

/** Child side: announce readiness and resolve once the parent says go. */
export async function waitForGo(): Promise<void> {
  process.stdout.write('ready\n');
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (line === 'go') break;
  }
  rl.close();
}
