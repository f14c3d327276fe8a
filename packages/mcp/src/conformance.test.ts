import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './gateway.ts';
import { type HttpFront, startHttpFront } from './http-front.ts';
import { startConformanceServer } from './testing/conformance-server.ts';
import { makeTestGate } from './testing/gateway-fixture.ts';
import type { UpstreamConfig } from './upstream.ts';

/*
 * The official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios)
 * run twice for each server: directly (its own Streamable HTTP front), and against the
 * gateway's Streamable HTTP front relaying to the same server. Two servers:
 * @modelcontextprotocol/server-everything (over stdio behind the gateway), which lacks most
 * of the scenarios' tools, and a test server implementing all of them (over HTTP). The suite is a local CLI that only talks to the URL it is given: it downloads
 * nothing at run time.
 */
const require = createRequire(import.meta.url);
const CONFORMANCE_BIN = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const EVERYTHING_BIN = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const ALLOW_ALL = 'version: 1\nrules:\n  - id: all\n    tool: "*"\n    verdict: allow\n';

/**
 * Scenarios the direct run passes and the gateway fails on purpose, each with its reason
 * (the same list is in the README's MCP gateway section).
 */
const REFUSED_ON_PURPOSE: Readonly<Record<string, string>> = {};

type Outcome = 'passed' | 'failed';

/** Runs every server scenario against `url`; the outcome of each, from the CLI's summary. */
function runConformance(url: string, cwd: string, scenario?: string): Promise<Map<string, Outcome>> {
  const only = scenario === undefined ? [] : ['--scenario', scenario];
  return new Promise((resolve, reject) => {
    // The CLI exits 1 when any scenario fails: the summary is what the test reads.
    execFile(process.execPath, [CONFORMANCE_BIN, 'server', '--url', url, ...only], { cwd, timeout: 120_000 }, (error, stdout) => {
      const outcomes = new Map<string, Outcome>();
      for (const match of stdout.matchAll(/^([✓✗]) ([a-z0-9-]+): (\d+) passed, (\d+) failed$/gmu)) {
        outcomes.set(match[2] as string, match[1] === '✓' && match[4] === '0' ? 'passed' : 'failed');
      }
      // A single scenario's run prints its checks' tally instead of the summary.
      const tally = scenario === undefined ? null : /^Passed: (\d+)\/(\d+), (\d+) failed/m.exec(stdout);
      if (scenario !== undefined && tally !== null) outcomes.set(scenario, tally[1] === tally[2] && tally[3] === '0' ? 'passed' : 'failed');
      if (outcomes.size === 0) reject(new Error(`no conformance summary (${error?.message ?? 'no error'}):\n${stdout}`));
      else resolve(outcomes);
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** server-everything on its own Streamable HTTP front; resolves once it listens. */
async function startEverythingHttp(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_BIN, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server-everything did not start')), 20_000);
    const onData = (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

const passing = (outcomes: Map<string, Outcome>) => [...outcomes].filter(([, o]) => o === 'passed').map(([name]) => name);

interface Target {
  /** What the suite runs against directly, and how the gateway reaches the same server. */
  start(): Promise<{ url: string; upstream: UpstreamConfig; close(): Promise<void> }>;
}

const TARGETS: Record<string, Target> = {
  '@modelcontextprotocol/server-everything': {
    async start() {
      const { url, child } = await startEverythingHttp();
      // The gateway starts its own copy over stdio, as a desktop config would.
      return { url, upstream: { name: 'everything', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] }, close: async () => void child.kill() };
    },
  },
  'a server implementing every scenario (testing/conformance-server.ts)': {
    async start() {
      const server = await startConformanceServer();
      return { url: server.url, upstream: { name: 'conformance', url: server.url }, close: () => server.close() };
    },
  },
};

describe.each(Object.entries(TARGETS))('the official conformance server scenarios against %s, directly and through the gateway', (label, target) => {
  let dir: string;
  let server: Awaited<ReturnType<Target['start']>>;
  let gateway: Gateway;
  let front: HttpFront;
  let direct: Map<string, Outcome>;
  let viaGateway: Map<string, Outcome>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cs-mcp-conformance-'));
    server = await target.start();
    gateway = await createGateway({ upstreams: [server.upstream], gate: makeTestGate(ALLOW_ALL, true), agent: { id: 'mcp-gateway' }, principal: 'user-1' });
    // The suite cannot send a bearer token: a loopback bind without one, as for local development.
    front = await startHttpFront({ gateway, bearerToken: undefined, noTokenOnLoopback: true });
    direct = await runConformance(server.url, dir);
    viaGateway = await runConformance(front.url, dir);
    // On a loaded machine a scenario can time out: one the gateway fails but the direct run
    // passed is run again alone, and counts as failed only if it fails again.
    for (const name of passing(direct).filter((n) => viaGateway.get(n) !== 'passed')) {
      const again = (await runConformance(front.url, dir, name)).get(name);
      if (again !== undefined) viaGateway.set(name, again);
    }
    const failed = (outcomes: Map<string, Outcome>) => [...outcomes].filter(([, o]) => o === 'failed').map(([name]) => name);
    console.info(
      `conformance against ${label}: ${passing(direct).length} of ${direct.size} scenarios pass directly, ${passing(viaGateway).length} through the gateway; ` +
        `failing directly: ${failed(direct).join(', ') || 'none'}; through the gateway: ${failed(viaGateway).join(', ') || 'none'}`,
    );
  }, 180_000);

  afterAll(async () => {
    await front?.close();
    await gateway?.close();
    await server?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the same scenarios both ways, and the direct run passes some', () => {
    expect([...viaGateway.keys()].sort()).toEqual([...direct.keys()].sort());
    expect(passing(direct).length).toBeGreaterThan(0);
  });

  it('the gateway passes every scenario the direct run passes, except those it refuses on purpose', () => {
    const lost = passing(direct).filter((name) => viaGateway.get(name) !== 'passed' && !(name in REFUSED_ON_PURPOSE));
    expect(lost).toEqual([]);
  });

  it('each scenario listed as refused on purpose still passes directly and still fails through the gateway', () => {
    for (const name of Object.keys(REFUSED_ON_PURPOSE)) {
      expect({ name, direct: direct.get(name), viaGateway: viaGateway.get(name) }).toEqual({ name, direct: 'passed', viaGateway: 'failed' });
    }
  });
});
