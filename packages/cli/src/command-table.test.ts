import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, registerSummaries } from './command-table.ts';
import { createCommandContext } from './command-context.ts';
import { buildProgram } from './run-cli.ts';
import { captureIo } from './testing/capture-io.ts';

const ENTRY = join(import.meta.dirname, '..', 'bin', 'countersign.js');
const RECORD_LOADS = join(import.meta.dirname, 'testing', 'record-loads.mjs');

/** The modules `countersign ...argv` resolves, run from the sources in a child process. */
function modulesLoadedBy(argv: string[]): string[] {
  const run = spawnSync(process.execPath, ['--conditions=countersign-source', '--import', RECORD_LOADS, ENTRY, ...argv], {
    encoding: 'utf8',
    input: '',
    env: { PATH: process.env.PATH ?? '' },
    timeout: 60_000,
  });
  const line = run.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  if (line === undefined) throw new Error(`no module list: ${run.stderr}`);
  return JSON.parse(line.slice('LOADED '.length));
}

/** Packages a light command must not import: each costs start-up time. */
const HEAVY = ['/packages/server/', '/packages/mcp/', '/packages/proxy/', '/packages/semantic/', '/packages/store-sqlite/', '/packages/store-postgres/', '/node_modules/hono/', '/node_modules/@modelcontextprotocol/'];
const heavyIn = (urls: string[]) => urls.filter((url) => HEAVY.some((part) => url.includes(part)));

describe('the countersign command loads only the command it runs', () => {
  it('--help imports no command module and none of the libraries they wire', () => {
    const loaded = modulesLoadedBy(['--help']);
    expect(loaded.some((url) => url.includes('/src/run-cli.ts'))).toBe(true);
    expect(loaded.filter((url) => url.includes('/src/commands/'))).toEqual([]);
    expect(heavyIn(loaded)).toEqual([]);
  });

  it('approvals list imports the approvals commands, not the server, gateway, proxy or stores', () => {
    const loaded = modulesLoadedBy(['approvals', 'list', '--url', 'http://127.0.0.1:9']);
    expect(loaded.some((url) => url.endsWith('/src/commands/approvals-read.ts'))).toBe(true);
    expect(loaded.filter((url) => url.endsWith('/src/commands/serve.ts') || url.endsWith('/src/commands/mcp.ts'))).toEqual([]);
    expect(heavyIn(loaded)).toEqual([]);
    // The diff library draws a changed tool definition (`approvals show`), never a listing.
    expect(loaded.filter((url) => url.includes('/node_modules/diff/'))).toEqual([]);
  });

  it('mcp and mcp pin refuse an invalid gateway configuration without loading the gateway, the MCP SDK, a store or the server', () => {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-cli-loads-'));
    try {
      const config = join(dir, 'gateway.yaml');
      writeFileSync(config, 'upstreams: []\n');
      for (const argv of [['mcp', '--config', config], ['mcp', 'pin', '--config', config]]) {
        const loaded = modulesLoadedBy(argv);
        expect(loaded.some((url) => url.endsWith('/packages/mcp/src/config/index.ts')), argv.join(' ')).toBe(true);
        expect(loaded.filter((url) => url.endsWith('/src/commands/mcp-serve.ts') || url.endsWith('/packages/mcp/src/index.ts')), argv.join(' ')).toEqual([]);
        const gatewayOrStore = ['/packages/server/', '/packages/proxy/', '/packages/store-sqlite/', '/packages/store-postgres/', '/node_modules/hono/', '/node_modules/@modelcontextprotocol/'];
        expect(loaded.filter((url) => gatewayOrStore.some((part) => url.includes(part))), argv.join(' ')).toEqual([]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the root help from the summaries is the help of the loaded commands, word for word', async () => {
    const { io } = captureIo({ cwd: '/' });
    const summaries = buildProgram(io);
    registerSummaries(summaries);
    const loaded = buildProgram(io);
    const ctx = createCommandContext(io, () => {});
    for (const entry of COMMANDS) (await entry.load())(loaded, ctx);
    expect(summaries.helpInformation()).toBe(loaded.helpInformation());
  }, 120_000);
});
