import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Gate } from '@countersign/core/gate';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { openSqliteStore } from '@countersign/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateMasterKeyFile, masterKeyPathFor } from './serve/master-key-file.ts';
import { runCaptured } from './testing/capture-io.ts';
import { childEnv, MEMORY_BIN, memoryUpstreamYaml } from './testing/memory-upstream.ts';

// `countersign mcp` as a desktop MCP client runs it: a child process spoken to over stdio.
const MAIN = join(import.meta.dirname, 'main.ts');

const POLICY = `
version: 1
rules:
  - id: reads
    tools: [read_graph, search_nodes, open_nodes]
    verdict: allow
  - id: writes
    tool: create_entities
    verdict: approve
    approval:
      approvers: { roles: [ops] }
      ttlSeconds: 600
  - id: no-deletes
    tool: delete_entities
    verdict: deny
`;

function refusalOf(result: CallToolResult): Record<string, unknown> | undefined {
  return result.isError === true ? (result._meta as { countersign?: Record<string, unknown> } | undefined)?.countersign : undefined;
}

describe('countersign mcp --config (stdio front)', () => {
  let dir: string;
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = '';
  const transportErrors: Error[] = [];

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-cli-')));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(
      join(dir, 'gateway.yaml'),
      [
        ...memoryUpstreamYaml(dir),
        'policy: policy.yaml',
        'principal: user-1',
        'trustOnFirstUse: true',
        'approvalUrl: http://127.0.0.1:8787',
      ].join('\n'),
    );
    transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--conditions=countersign-source', MAIN, 'mcp', '--config', 'gateway.yaml'],
      cwd: dir,
      env: childEnv(),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    client = new Client({ name: 'desktop-client', version: '1.0.0' });
    client.onerror = (error) => transportErrors.push(error);
    await client.connect(transport);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the upstream tools that the policy lets through, and logs only to stderr', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_graph', 'create_entities', 'search_nodes']));
    expect(stderr).toContain('countersign mcp: serving memory on stdio');
    // The default store, relative to the config file: the same one `countersign serve` would open there.
    expect(stderr).toContain(join(dir, '.countersign', 'countersign.sqlite'));
    expect(transportErrors).toEqual([]);
  });

  it('runs an allowed call, refuses a denied one, and answers an approve call with its approval link', async () => {
    const read = (await client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
    expect(read.isError).not.toBe(true);
    expect(JSON.stringify(read.content)).toContain('entities');

    const denied = (await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['x'] } })) as CallToolResult;
    expect(refusalOf(denied)).toMatchObject({ reason: 'policy_deny' });

    const write = (await client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'a', entityType: 't', observations: [] }] } })) as CallToolResult;
    const refusal = refusalOf(write);
    expect(refusal).toMatchObject({ reason: 'approval_required' });
    expect(String(refusal?.approvalUrl)).toMatch(/^http:\/\/127\.0\.0\.1:8787\/requests\//);
    expect(transportErrors).toEqual([]);
  });

  it('an approval decided on the same store (as on serve\'s page) lets the identical retry run, once', async () => {
    const args = { entities: [{ name: 'approved-entity', entityType: 't', observations: [] }] };
    const first = refusalOf((await client.callTool({ name: 'create_entities', arguments: args })) as CallToolResult);
    expect(first).toMatchObject({ reason: 'approval_required' });
    // The approver's side: another process on the same SQLite file and master key, like `countersign serve`.
    const dbPath = join(dir, '.countersign', 'countersign.sqlite');
    const store = await openSqliteStore({ path: dbPath });
    try {
      const master = await loadOrCreateMasterKeyFile(masterKeyPathFor(dbPath));
      const approver = new Gate({
        ledger: store.ledger,
        audit: store.audit,
        definitions: store.definitions,
        policy: loadPolicy(POLICY, 'yaml'),
        keyring: new Keyring([hmacKey('k1', master.secret)]),
      });
      expect((await approver.approvals.decide({ id: 'olga', roles: ['ops'] }, { requestId: String(first?.requestId), decision: 'approve' })).ok).toBe(true);
    } finally {
      await store.close();
    }
    const ran = (await client.callTool({ name: 'create_entities', arguments: args })) as CallToolResult;
    expect(ran.isError).not.toBe(true);
    expect(JSON.stringify(ran)).toContain('approved-entity');
    expect(refusalOf((await client.callTool({ name: 'create_entities', arguments: args })) as CallToolResult)).toMatchObject({ reason: 'already_consumed' });
  });

  // Last in this block: it stops the gateway the tests above used.
  it('signs the chain head at start and at a clean stop, so `audit verify` with the key covers every record', async () => {
    // The client closes stdin, as a desktop app does on quit; the gateway stops cleanly.
    const exited = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    await client.close();
    await exited;
    const db = join(dir, '.countersign', 'countersign.sqlite');
    // With the key (master.key beside the database): before, `no_checkpoint`.
    const verified = await runCaptured(['audit', 'verify', '--db', db, '--json'], { cwd: dir });
    expect(JSON.parse(verified.stdout), verified.stdout).toMatchObject({ ok: true });
    // The last record is the checkpoint written at the stop, signing everything before it.
    const exported = await runCaptured(['audit', 'export', '--db', db], { cwd: dir });
    expect(JSON.parse(exported.stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({ type: 'checkpoint' });
    expect(verified.code).toBe(0);
  }, 60_000);
});

describe('countersign mcp: a bad configuration', () => {
  it('is refused before anything starts, with every problem on stderr and nothing on stdout', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-bad-')));
    try {
      writeFileSync(join(dir, 'gateway.yaml'), 'upstreams:\n  - name: "a_b"\n    command: x\nprincipal: ""\nsurprise: 1\n');
      const run = spawnSync(process.execPath, ['--conditions=countersign-source', MAIN, 'mcp', '--config', 'gateway.yaml'], { cwd: dir, env: childEnv(), encoding: 'utf8' });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('invalid gateway configuration');
      expect(run.stderr).toContain('upstreams[0].name');
      expect(run.stderr).toContain('policy');
      expect(run.stderr).toContain('principal');
      expect(run.stderr).toContain('surprise');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});

describe('countersign mcp --http --insecure-no-token', () => {
  // In-process (the CLI's own entry with captured output): a refusal before anything starts
  // needs no process of its own, and a child would spend most of its second importing the CLI.
  it('is refused on a host that is not loopback, before anything starts', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-notoken-')));
    try {
      writeFileSync(join(dir, 'policy.yaml'), POLICY);
      writeFileSync(join(dir, 'gateway.json'), JSON.stringify({ upstreams: [{ name: 'memory', command: process.execPath, args: [MEMORY_BIN] }], policy: 'policy.yaml', principal: 'user-1', http: { host: '0.0.0.0', port: 0 } }));
      const run = await runCaptured(['mcp', '--http', '--insecure-no-token', '--config', 'gateway.json'], { cwd: dir, env: childEnv() });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--insecure-no-token: 0.0.0.0 is not a loopback address');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});

describe('countersign mcp --http (Streamable HTTP front)', () => {
  const TOKEN = 'http-front-test-token-0123456789abcdef';

  function writeConfig(dir: string): void {
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(
      join(dir, 'gateway.json'),
      JSON.stringify({
        upstreams: [{ name: 'memory', command: process.execPath, args: [MEMORY_BIN], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } }],
        policy: 'policy.yaml',
        principal: 'user-1',
        trustOnFirstUse: true,
        http: { port: 0, tokenEnv: 'GATEWAY_TOKEN' },
      }),
    );
  }

  it('listens on 127.0.0.1 with the bearer token from the environment and serves the SDK client', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-http-')));
    writeConfig(dir);
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['--conditions=countersign-source', MAIN, 'mcp', '--http', '--config', 'gateway.json'], {
      cwd: dir,
      env: { ...childEnv(), GATEWAY_TOKEN: TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = '';
        const timer = setTimeout(() => reject(new Error(`no url: ${err}`)), 20_000);
        child.stderr.on('data', (c: Buffer) => {
          err += c.toString();
          const found = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
          if (found?.[1] !== undefined) {
            clearTimeout(timer);
            resolve(found[1]);
          }
        });
      });
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      const client = new Client({ name: 'remote', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('read_graph');
      await client.close();
      const anonymous = await fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(anonymous.status).toBe(401);
      expect(out).toBe('');
    } finally {
      const exited = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  // In-process, as the refusal above.
  it('refuses to start without the bearer token in the environment', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-http-')));
    try {
      writeConfig(dir);
      const run = await runCaptured(['mcp', '--http', '--config', 'gateway.json'], { cwd: dir, env: childEnv() });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('GATEWAY_TOKEN must hold the bearer token');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});

describe('countersign mcp pin: the operator lock', () => {
  it('writes the lock of the upstream tools, and a gateway with `lock:` serves them without trusting first sight', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-pin-')));
    try {
      writeFileSync(join(dir, 'policy.yaml'), POLICY);
      const upstream = [
        ...memoryUpstreamYaml(dir),
        'policy: policy.yaml',
        'principal: user-1',
      ];
      writeFileSync(join(dir, 'gateway.yaml'), [...upstream, 'lock: locks/mcp.lock.json'].join('\n'));
      const run = spawnSync(process.execPath, ['--conditions=countersign-source', MAIN, 'mcp', 'pin', '--config', 'gateway.yaml', '--out', 'pinned.json'], {
        cwd: dir,
        env: childEnv(),
        encoding: 'utf8',
      });
      // Nothing of its own; the upstream's stderr, under its name, is all there is.
      expect(run.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('[memory] '))).toEqual([]);
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^locked \d+ tools of memory in .*pinned\.json/);
      const lock = JSON.parse(readFileSync(join(dir, 'pinned.json'), 'utf8'));
      expect(lock.lockfileVersion).toBe(1);
      expect(lock.tools.read_graph.digest).toMatch(/^[0-9a-f]{64}$/);
      expect(lock.tools.read_graph.definition.name).toBe('read_graph');
      // Without --out it writes where the config's `lock` points (a missing folder is an I/O error, exit 2).
      // In-process: the command above already proved what a pin process prints.
      const noFolder = await runCaptured(['mcp', 'pin', '--config', 'gateway.yaml'], { cwd: dir, env: childEnv() });
      expect(noFolder.code).toBe(2);
      expect(noFolder.stderr).toContain('locks/mcp.lock.json');

      writeFileSync(join(dir, 'gateway.yaml'), [...upstream, 'lock: pinned.json'].join('\n'));
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['--conditions=countersign-source', MAIN, 'mcp', '--config', 'gateway.yaml'],
        cwd: dir,
        env: childEnv(),
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const client = new Client({ name: 'desktop-client', version: '1.0.0' });
      await client.connect(transport);
      try {
        // No trustOnFirstUse: the tools are served because the lock pinned them.
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(['read_graph', 'search_nodes', 'create_entities']));
        expect(stderr).toMatch(/pinned \d+ tool\(s\) from .*pinned\.json/);
      } finally {
        await client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a lock edited by hand is refused before anything starts', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-mcp-badlock-')));
    try {
      writeFileSync(join(dir, 'policy.yaml'), POLICY);
      const definition = { name: 'read_graph', description: 'edited' };
      writeFileSync(join(dir, 'mcp.lock.json'), JSON.stringify({ lockfileVersion: 1, tools: { read_graph: { digest: '0'.repeat(64), definition } } }));
      writeFileSync(join(dir, 'gateway.yaml'), 'upstreams:\n  - { name: m, command: x }\npolicy: policy.yaml\nprincipal: u\nlock: mcp.lock.json\n');
      const run = spawnSync(process.execPath, ['--conditions=countersign-source', MAIN, 'mcp', '--config', 'gateway.yaml'], { cwd: dir, env: childEnv(), encoding: 'utf8' });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('invalid lock');
      expect(run.stderr).toContain('is not the SHA-256 of its definition');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});
