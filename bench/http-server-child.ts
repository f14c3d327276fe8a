/**
 * Child process of the HTTP rows: a Countersign server over one store, the same app
 * around that gate with its hot operations answered from memory (`around`), a bare Hono
 * server (same @hono/node-server adapter, no middleware) and, beside a durable store, the
 * floor server (bare Hono + the minimum durable writes, on its own file or schema of the
 * same kind: http-floor-server.ts), all on 127.0.0.1. Run apart
 * from the load generator so the client's CPU is not charged to the servers; reports
 * its own CPU use on request, so the table can show server CPU per round trip.
 *
 * argv: `memory` | `sqlite` | `sqlite-offloop` | `postgres <connection string>`. IPC: sends `{ ready, ports }` (or
 * `{ failed }`; `ports.floor` only beside a durable store); answers `cpu` with process.cpuUsage() (and the store's
 * and the floor's commits and database CPU); exits on `stop`.
 * CS_PG_OPEN: another build's store-postgres open.ts, to compare two builds over HTTP (as in profile-postgres.ts).
 * CS_FLOOR_PG=autocommit: the Postgres floor's one-statement-per-step mode instead of batched (see floor-postgres.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryAuditLog } from '@countersign/core/audit';
import { MemoryDefinitionStore } from '@countersign/core/catalog';
import type { ToolRegistry } from '@countersign/core/gate';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import type { Gate } from '@countersign/core/gate';
import { createApp, type ServerOptions } from '../packages/server/src/app/create-app.ts';
import { ServerMetrics } from '../packages/server/src/ops/metrics.ts';
import { startServer } from '../packages/server/src/serve/start-server.ts';
import { openSqliteStore } from '@countersign/store-sqlite';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { backendCpuUs } from './backend-cpu.ts';
import { dropSchema } from './drop-schema.ts';
import { openPostgresFloor } from './floor-postgres.ts';
import { openSqliteFloor } from './floor-sqlite.ts';
import type { FloorStore } from './floor-store.ts';
import { floorServer } from './http-floor-server.ts';
import { gateAnsweredFromMemory } from './gate-answered-from-memory.ts';
import { BENCH_AGENT_TOKEN, BENCH_TOOL } from './http-flows.ts';

// Allowed by name: the HTTP rows measure the per-call path, not an approver's clicks.
const POLICY = loadPolicy(`version: 1\nrules:\n  - { id: bench-allow, tool: ${BENCH_TOOL}, verdict: allow }\n`, 'yaml');
const TOOLS: ToolRegistry = {
  [BENCH_TOOL]: {
    execute: () => ({ ok: true }),
    definition: { name: BENCH_TOOL, description: 'Move money', inputSchema: { type: 'object' } },
  },
};

interface OpenedStore {
  store: Pick<ReturnType<typeof openSqliteStore>, 'ledger' | 'audit' | 'definitions'> & Partial<Pick<ReturnType<typeof openSqliteStore>, 'sessions'>>;
  /** Durable commits so far (SQLite, Postgres) and the CPU (µs) of the Postgres backends serving this store. */
  usage(): Promise<{ commits?: number | undefined; dbCpuUs?: number | undefined }>;
  /** The floor's storage of the same kind (its own file or schema); none beside the memory store. */
  floor?: FloorStore | undefined;
  dispose(): Promise<void>;
}

async function openStore(kind: string, url: string | undefined): Promise<OpenedStore> {
  // No durability at all: what is left is the HTTP stack and the gate's CPU.
  if (kind === 'memory') return { store: { ledger: new MemoryLedger(), audit: new MemoryAuditLog(), definitions: new MemoryDefinitionStore() }, usage: async () => ({}), dispose: async () => {} };
  if (kind === 'sqlite' || kind === 'sqlite-offloop') {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-http-bench-'));
    const store = openSqliteStore({ path: join(dir, 'bench.sqlite'), syncOffLoop: kind === 'sqlite-offloop' });
    // The floor syncs as the store beside it does (FULL on the loop, or off the loop).
    const floor = openSqliteFloor(join(dir, 'floor.sqlite'), { syncOffLoop: kind === 'sqlite-offloop' });
    return {
      store,
      usage: async () => ({ commits: store.durableCommits() }),
      floor,
      dispose: async () => {
        await store.close();
        await floor.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `cs_http_bench_${randomBytes(6).toString('hex')}`;
  // The application name finds this pool's backends, whose CPU the table reports (same machine only).
  const applicationName = `cs-http-bench-${process.pid}`;
  const { openPostgresStore } = (await import(process.env.CS_PG_OPEN ?? '@countersign/store-postgres')) as typeof import('@countersign/store-postgres');
  const store = await openPostgresStore({ connectionString: url!, schema, pool: { max: 16, connectionTimeoutMillis: 3_000, application_name: applicationName } });
  const floor = await openPostgresFloor(url!, process.env.CS_FLOOR_PG === 'autocommit' ? 'autocommit' : 'batched');
  return {
    store,
    usage: async () => ({ commits: store.durableCommits(), dbCpuUs: await backendCpuUs(url!, applicationName) }),
    floor,
    dispose: async () => {
      await store.close();
      await floor.close();
      await dropSchema(url!, schema);
    },
  };
}

/** The bare server: parses each JSON body and answers it back (one parse, one serialization). */
function bareServer(): Server {
  const app = new Hono();
  app.post('/bare/:step', async (c) => c.json({ step: c.req.param('step'), echo: await c.req.json() }));
  return createAdaptorServer({ fetch: app.fetch, hostname: '127.0.0.1' }) as Server;
}

/**
 * The `around` server: the Countersign app (createApp, as startServer builds it, with its
 * metrics) over the same gate with its hot operations answered from memory
 * (gate-answered-from-memory.ts), so its CPU is everything a round trip costs besides the
 * gate and its store.
 */
function aroundTheGate(gate: Gate, auth: ServerOptions['auth']): { server: Server; close(): Promise<void> } {
  // No process metrics: the real server's collector already samples this process.
  const { app, close } = createApp({ gate: gateAnsweredFromMemory(gate), auth, metrics: { collector: new ServerMetrics({ processMetrics: false }) } });
  return { server: createAdaptorServer({ fetch: app.fetch, hostname: '127.0.0.1' }) as Server, close };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

async function main(): Promise<void> {
  const [kind = 'sqlite', url] = process.argv.slice(2);
  const opened = await openStore(kind, url);
  const auth = { agents: [{ name: 'bench-agent', token: BENCH_AGENT_TOKEN }], approvers: [], sessionSecret: randomBytes(32).toString('hex') };
  const running = await startServer({
    ...opened.store,
    policy: POLICY,
    keyring: new Keyring([hmacKey('k1', randomBytes(32))]),
    tools: TOOLS,
    auth,
    host: '127.0.0.1',
    port: 0,
  });
  const bare = bareServer();
  const barePort = await listen(bare);
  const around = aroundTheGate(running.gate, auth);
  const aroundPort = await listen(around.server);
  const floor = opened.floor === undefined ? undefined : floorServer(opened.floor);
  const floorPort = floor === undefined ? undefined : await listen(floor);
  process.send!({ ready: true, ports: { countersign: running.port, bare: barePort, around: aroundPort, floor: floorPort } });
  // The probes that read the stores' counters and the Postgres backends' CPU cost this process
  // a few ms each time; that CPU is left out of what is reported, so it is not charged to the
  // round trips (it would add ~10 µs per round trip to a 1-client Postgres row).
  let probeCpuUs = 0;
  const usage = async () => {
    const before = process.cpuUsage();
    const answer = { ...(await opened.usage()), floorCommits: opened.floor?.commits(), floorDbCpuUs: await opened.floor?.dbCpuUs?.() };
    const after = process.cpuUsage();
    probeCpuUs += after.user + after.system - before.user - before.system;
    return { cpu: { user: after.user + after.system - probeCpuUs, system: 0 }, ...answer };
  };
  process.on('message', (message) => {
    if (message === 'cpu') void usage().then((answer) => process.send!(answer));
    if (message === 'stop') {
      void (async () => {
        await running.close();
        await around.close();
        for (const server of [bare, around.server, floor]) {
          if (server === undefined) continue;
          await new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeAllConnections();
        }
        await opened.dispose();
        process.exit(0);
      })();
    }
  });
}

main().catch((error: unknown) => {
  process.send?.({ failed: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
