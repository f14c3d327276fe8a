import { type ChildProcess, execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPublicPackages } from './testing/build-public-packages.ts';
import { installFolder, readRepositoryLock } from './testing/install-lockfile.ts';
import { prelinkThirdPartyPackages } from './testing/prelink-packages.ts';
import { readmeTsBlocks } from './testing/readme-blocks.ts';

// What a user does before the packages are published (README, "Install"): build once, `npm
// pack` every public package, install the tarballs into an empty project outside the
// repository, and run there on plain `node` (no source condition, no TypeScript of ours: the
// packages resolve to their built dist/). Each folder installs offline from a lockfile cut out
// of the repository's (testing/install-lockfile.ts): every third-party package is one the
// repository's own `npm ci` cached and extracted (hard-linked from there, testing/prelink-packages.ts),
// none comes from the network.

const repo = join(import.meta.dirname, '..', '..', '..');
/** The public packages of the service, the client and the CLI (folders under packages/). */
const PACKAGES = ['core', 'semantic', 'store-sqlite', 'store-postgres', 'client', 'server', 'mcp', 'proxy', 'cli'];

interface InstalledIntegration {
  /** `@countersign/<name>`, in packages/integrations/<name>. */
  name: string;
  /** Its framework's packages, installed beside it at the versions of the repository's lockfile. */
  frameworks: string[];
  /** The other packages of ours it depends on, besides core (installed from their tarballs too). */
  ours?: string[];
  /** The program run there: the repository's offline example, or a small one of testing/installed-integrations/ where a run needs a service. */
  program: string;
  /** The last line the program prints. */
  lastLine: string;
  /**
   * Leaves out the framework's optional dependencies (`npm ci --omit=optional`): only where
   * they are its native runtime for this platform, which the program does not start.
   */
  omitOptional?: true;
}

const BANK_TOOLS_RAN = 'tools that ran: [{"tool":"read_balance","args":{"account":"main"}},{"tool":"transfer","args":{"amount":2500,"to":"alice"}}]';
/** Every framework integration, each installed alone: its tarball, core's, and its framework. */
const INTEGRATIONS: InstalledIntegration[] = [
  { name: 'ai-sdk', frameworks: ['ai', 'zod'], program: join(repo, 'examples', 'ai-sdk', 'ai-sdk.ts'), lastLine: BANK_TOOLS_RAN },
  {
    name: 'openai-agents',
    frameworks: ['@openai/agents', 'zod'],
    program: join(repo, 'examples', 'openai-agents', 'openai-agents.ts'),
    lastLine: 'tools that ran: [{"tool":"list_dir","args":{"path":"/tmp"}},{"tool":"read_file","args":{"path":"/tmp/a"}}]',
  },
  { name: 'langchain', frameworks: ['@langchain/core', '@langchain/langgraph', 'langchain'], program: join(repo, 'examples', 'langchain', 'langchain.ts'), lastLine: BANK_TOOLS_RAN },
  // A workflow run needs DBOS's Postgres and a Temporal server, an agent run the Claude runtime and a model: these wire the integration and stop.
  { name: 'dbos', frameworks: ['@dbos-inc/dbos-sdk'], program: installedProgram('dbos.ts'), lastLine: 'dbos: function runCall, decisions on countersign:decision:request-1' },
  {
    name: 'temporal',
    frameworks: ['@temporalio/activity', '@temporalio/client', '@temporalio/common', '@temporalio/worker', '@temporalio/workflow'],
    program: installedProgram('temporal.ts'),
    lastLine: 'temporal: activities countersign.propose; workflow helper function',
  },
  {
    name: 'claude-agent-sdk',
    frameworks: ['@anthropic-ai/claude-agent-sdk'],
    // The relay check runs the recording proxy in-process (countersignClaudeAgent).
    ours: ['semantic', 'proxy'],
    program: installedProgram('claude-agent-sdk.ts'),
    lastLine: 'claude-agent-sdk: hooks for PostToolUse, PostToolUseFailure, PreToolUse',
    // The SDK's runtime is its platform package (about 400 MB unpacked), which the program, wiring
    // the hooks only, never starts; extracting it was the largest part of every install's work.
    omitOptional: true,
  },
];

function installedProgram(file: string): string {
  return join(import.meta.dirname, 'testing', 'installed-integrations', file);
}

const repoLock = readRepositoryLock(repo);
/** `name@version` as the repository's lockfile has it: what `npm ci` put in npm's cache. */
const lockedVersion = (name: string) => `${name}@${repoLock[`node_modules/${name}`]?.version}`;
/** What an application that embeds only the approval service must not receive. */
const NOT_IN_SERVER_INSTALL = [
  '@countersign/mcp',
  '@countersign/proxy',
  '@countersign/semantic',
  '@countersign/store-sqlite',
  '@countersign/store-postgres',
  '@countersign/client',
  '@countersign/cli',
  '@modelcontextprotocol/sdk',
  'commander',
  'pg',
];
const OLD_NODE = '/usr/bin/node';
const AGENT_TOKEN = `agent-${randomBytes(16).toString('hex')}`;
const APPROVER_TOKEN = `approver-${randomBytes(16).toString('hex')}`;

/** Node >= 22.18 from PATH (what a user runs), else this process's Node. */
function plainNode(): string {
  const found = spawnSync('node', ['-p', 'process.execPath + " " + process.versions.node'], { encoding: 'utf8' });
  const [path = '', version = ''] = (found.stdout ?? '').trim().split(' ');
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return found.status === 0 && (major > 22 || (major === 22 && minor >= 18)) ? path : process.execPath;
}

const node = plainNode();
// Everything npm runs uses this process's Node first on PATH, not the machine's default.
const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false' };
// No source condition leaks into what the test runs: the installed packages resolve to dist/.
delete env.NODE_OPTIONS;
// Where the CLI keeps its compile cache is under test: Node's own settings for it would override.
delete env.NODE_COMPILE_CACHE;
delete env.NODE_DISABLE_COMPILE_CACHE;
const run = (cmd: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}) =>
  execFileSync(cmd, args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
const runAsync = promisify(execFile);
/** An application's own strict settings: no source condition, so every import resolves to an installed package's dist types. */
const PLAIN_TSC_OPTIONS = { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', allowImportingTsExtensions: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true, typeRoots: [join(repo, 'node_modules', '@types')], types: ['node'], skipLibCheck: true };
/**
 * The compilers a user type-checks with. The packages' declarations are emitted by TypeScript 7
 * (the repository's compiler) and must stay readable by TypeScript 5, which the repository
 * keeps installed for this (`typescript-5`); one thread, as the tests run beside it.
 */
interface UserCompiler {
  name: string;
  major: number;
  tsc: string;
  args: string[];
}
const TYPESCRIPT_5: UserCompiler = { name: 'TypeScript 5', major: 5, tsc: join(repo, 'node_modules', 'typescript-5', 'bin', 'tsc'), args: [] };
const TYPESCRIPT_7: UserCompiler = { name: 'TypeScript 7', major: 7, tsc: join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), args: ['--singleThreaded'] };

/** Type-checks the project `project` in `cwd` with `compiler`: it prints nothing and exits 0. */
function expectTypeChecks(compiler: UserCompiler, cwd: string, project = 'tsconfig.json'): void {
  const { name, major, tsc, args } = compiler;
  const { version } = JSON.parse(readFileSync(join(tsc, '..', '..', 'package.json'), 'utf8')) as { version: string };
  expect(version.split('.')[0], `${name} is ${version}`).toBe(String(major));
  const checked = spawnSync(node, [tsc, '-p', project, ...args], { cwd, encoding: 'utf8', env });
  expect(checked.stdout + checked.stderr, name).toBe('');
  expect(checked.status, name).toBe(0);
}

/** The application's own files, type-checked in the project with every public package. */
const APP_FILES = ['check.ts', 'agent.ts', 'in-process.ts'];
/** The integrations' programs, each in its own folder (relative to the work folder). */
const integrationFiles = () => INTEGRATIONS.map(({ name, program }) => `${name}/${basename(program)}`);

/**
 * Writes the programs the type-check tests compile and their projects: the app's files
 * (app/tsconfig.json), every integration's program in its folder (tsconfig.json in the work
 * folder: one compiler run for all six, each file resolving its imports from the node_modules
 * of its own folder), and both sets together for TypeScript 5 (tsconfig.typescript-5.json).
 */
function writeProgramsToTypeCheck(): void {
  writeFileSync(join(app, 'check.ts'), TYPED_PROGRAM);
  writeFileSync(join(app, 'in-process.ts'), IN_PROCESS_PROGRAM);
  writeFileSync(join(app, 'agent.ts'), AGENT_PROGRAM);
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: PLAIN_TSC_OPTIONS, files: APP_FILES }));
  for (const { name, program } of INTEGRATIONS) copyFileSync(program, join(work, name, basename(program)));
  writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({ compilerOptions: PLAIN_TSC_OPTIONS, files: integrationFiles() }));
  const allFiles = [...APP_FILES.map((file) => `app/${file}`), ...integrationFiles()];
  writeFileSync(join(work, 'tsconfig.typescript-5.json'), JSON.stringify({ compilerOptions: PLAIN_TSC_OPTIONS, files: allFiles }));
}
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

let work: string;
let tarballs: Map<string, string>;
/** Every public package installed. */
let app: string;
const cli = () => join(app, 'node_modules', '@countersign', 'cli', 'bin', 'countersign.js');

async function installInto(name: string, packages: readonly string[], frameworks: readonly string[] = [], omitOptional = false): Promise<{ dir: string; took: string }> {
  const dir = join(work, name);
  mkdirSync(dir);
  const folder = installFolder(name, dir, packages.map((p) => tarballs.get(p)!), frameworks, repoLock);
  writeFileSync(join(dir, 'package.json'), JSON.stringify(folder.packageJson, null, 2));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(folder.lockfile, null, 2));
  const started = performance.now();
  const prelinked = prelinkThirdPartyPackages(repo, dir, folder);
  // From npm's cache alone: a package it lacks fails the install at once, where a registry npm
  // cannot reach is retried with backoff for minutes. `npm ci` would delete the prelinked packages.
  const omit = omitOptional ? ['--omit=optional'] : [];
  await runAsync('npm', [prelinked ? 'install' : 'ci', '--offline', '--no-audit', '--no-fund', ...omit], { cwd: dir, env, timeout: 600_000 });
  return { dir, took: `${seconds(started)}${prelinked ? ' (third-party packages hard-linked)' : ''}` };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'countersign-install-'));
  // The installed CLI keeps its compiled modules in the user's cache folder: the commands run
  // here with the test's environment keep them in the work folder, not in this user's cache,
  // where each run's copies (under a new temporary path every time) would pile up.
  env.XDG_CACHE_HOME = join(work, 'cache');
  const packed = join(work, 'tarballs');
  mkdirSync(packed);
  const report: string[] = [];
  let started = performance.now();
  // One build, reused: a package whose dist/ is newer than all its sources is not rebuilt, and
  // the integrations and what they need come from the builds the package-exports tests share.
  const built = await buildPublicPackages(repo);
  report.push(`build: ${built.length === 0 ? 'reused' : built.join(', ')} ${seconds(started)}`);
  started = performance.now();
  // One npm process packs them all (-w for each): fifteen npm start-ups cost more than the packing.
  const folders = [...PACKAGES, ...INTEGRATIONS.map(({ name }) => `integrations/${name}`)];
  const { stdout } = await runAsync('npm', ['pack', '--json', '--pack-destination', packed, ...folders.flatMap((p) => ['-w', `packages/${p}`])], { cwd: repo, env, maxBuffer: 64 * 1024 * 1024 });
  const infos = JSON.parse(stdout) as { name: string; filename: string; size: number; unpackedSize: number; entryCount: number }[];
  const packs = folders.map((p) => [p, infos.find((info) => info.name === `@countersign/${p.replace('integrations/', '')}`)!] as const);
  report.push(`pack (one npm process, ${packs.length} packages): ${seconds(started)}`);
  tarballs = new Map(packs.map(([p, info]) => [p, join(packed, info.filename)]));
  for (const [, info] of packs) report.push(`  ${info.filename.padEnd(36)} ${(info.size / 1024).toFixed(0).padStart(5)} KiB packed, ${(info.unpackedSize / 1024).toFixed(0).padStart(5)} KiB unpacked, ${info.entryCount} files`);
  started = performance.now();
  const [all, serverOnly, clientOnly, ...integrations] = await Promise.all([
    installInto('app', PACKAGES),
    installInto('server-only', ['core', 'server']),
    installInto('client-only', ['core', 'client']),
    // Each integration in a folder of its own: a dependency it forgot to declare is missing there, not lent by a neighbour.
    ...INTEGRATIONS.map(({ name, frameworks, ours = [], omitOptional = false }) =>
      installInto(name, ['core', ...ours, `integrations/${name}`], frameworks, omitOptional),
    ),
  ]);
  app = all!.dir;
  writeProgramsToTypeCheck();
  report.push(`install, ${3 + INTEGRATIONS.length} folders in parallel from the npm cache: ${seconds(started)}`);
  report.push(`  all ${PACKAGES.length} service packages ${all!.took}; @countersign/server alone ${serverOnly!.took}; @countersign/client alone ${clientOnly!.took}`);
  for (const [i, { name, frameworks, omitOptional }] of INTEGRATIONS.entries()) {
    report.push(`  @countersign/${name} with ${frameworks.map(lockedVersion).join(', ')}${omitOptional ? ' (--omit=optional)' : ''}: ${integrations[i]!.took}`);
  }
  console.log(`install test\n${report.join('\n')}`);
}, 900_000);
afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
}, 300_000);

/** `countersign serve` from the installed CLI on an ephemeral port, with the agent and approver tokens the test chose. */
async function startInstalledServe(cwd: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(node, [cli(), 'serve', '--json', '--port', '0'], {
    cwd,
    env: { PATH: env.PATH, HOME: cwd, COUNTERSIGN_AGENT_TOKEN: AGENT_TOKEN, COUNTERSIGN_APPROVER_TOKEN: APPROVER_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 60_000);
    child.on('close', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const event = JSON.parse(line) as { event?: string; url?: string };
      if (event.event === 'listening' && event.url !== undefined) {
        clearTimeout(timer);
        resolve(event.url);
      }
    });
  });
  return { url, child };
}

describe('npm pack, install into an empty project, run on plain node', () => {
  it('installed, not linked: the project has copies of the built packages and no sources', () => {
    expect(existsSync(join(app, 'node_modules', '@countersign', 'core', 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', '@countersign', 'core', 'src'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', '.bin', 'countersign'))).toBe(true);
  });

  it('an application that installs only @countersign/server gets none of the gateway, proxy, semantic layer, stores or CLI', () => {
    const names = new Set<string>();
    type Listed = { version?: string; missing?: boolean; dependencies?: Record<string, Listed> };
    // Installed packages only: npm ls also names an optional peer (the client, for linkedPair) it did not install.
    const walk = (deps: Record<string, Listed> = {}) => {
      for (const [name, dep] of Object.entries(deps)) {
        if (dep.version !== undefined && dep.missing !== true) names.add(name);
        walk(dep.dependencies);
      }
    };
    const dir = join(work, 'server-only');
    walk(JSON.parse(run('npm', ['ls', '--all', '--json'], dir)).dependencies);
    expect(names.has('@countersign/server')).toBe(true);
    expect(NOT_IN_SERVER_INSTALL.filter((name) => names.has(name))).toEqual([]);
    expect(NOT_IN_SERVER_INSTALL.filter((name) => existsSync(join(dir, 'node_modules', name)))).toEqual([]);
  });

  it('@countersign/client installs with core alone and loads on plain node', () => {
    const out = run(node, ['--input-type=module', '-e', "const c = await import('@countersign/client'); console.log(typeof c.createClient)"], join(work, 'client-only'));
    expect(out.trim()).toBe('function');
  });

  it("the README's in-process example runs from the installed packages", () => {
    writeFileSync(join(app, 'in-process.ts'), IN_PROCESS_PROGRAM);
    const out = run(node, ['in-process.ts'], app);
    expect(out.split('\n')).toEqual([
      'propose:        approval_required',
      'first dispatch: executed',
      'replay:         not_approved (already_consumed)',
      'transfers made: [{"amount":500,"to":"alice"}]',
      '',
    ]);
  });

  it('an agent on @countersign/client runs a transfer through `countersign serve` of the installed CLI, approved with `countersign approvals approve`', async () => {
    const serveDir = join(work, 'service');
    mkdirSync(serveDir);
    const { url, child } = await startInstalledServe(serveDir);
    try {
      writeFileSync(join(app, 'agent.ts'), AGENT_PROGRAM);
      const agent = spawn(node, ['agent.ts'], { cwd: app, env: { PATH: env.PATH, COUNTERSIGN_URL: url, COUNTERSIGN_AGENT_TOKEN: AGENT_TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] });
      const lines: string[] = [];
      let stderr = '';
      agent.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => agent.on('close', resolve));
      const requestId = await new Promise<string>((resolve, reject) => {
        agent.on('close', () => reject(new Error(`the agent exited first: ${lines.join('\n')} ${stderr}`)));
        createInterface({ input: agent.stdout! }).on('line', (line) => {
          lines.push(line);
          const waiting = /^waiting for ([^:\s]+):/.exec(line);
          if (waiting) resolve(waiting[1]!);
        });
      });
      const approved = run(node, [cli(), 'approvals', 'approve', requestId, '--url', url, '--reason', 'install test'], app, { COUNTERSIGN_APPROVER_TOKEN: APPROVER_TOKEN });
      expect(approved).toContain('approved');
      expect(await exited).toBe(0);
      expect(lines[0]).toBe(`waiting for ${requestId}: ${url}/requests/${requestId}`);
      expect(lines.slice(1)).toEqual(['decided: approved', 'authorize: authorized', 'ran transfer {"amount":2500,"to":"alice"}', 'complete: ok']);
    } finally {
      child.kill('SIGTERM');
    }
  }, 120_000);

  it('`countersign mcp` over stdio, launched from a desktop config, serves a pinned upstream tool to the stock MCP SDK client', () => {
    const home = join(work, 'desktop-user');
    mkdirSync(home);
    // The upstream lives in the project, on the MCP SDK and zod the CLI installed there.
    writeFileSync(join(app, 'upstream.mjs'), UPSTREAM_SERVER);
    writeFileSync(join(home, 'policy.yaml'), 'version: 1\nrules:\n  - tool: echo\n    verdict: allow\n');
    writeFileSync(
      join(home, 'gateway.yaml'),
      [`upstreams:\n  - name: local\n    command: ${node}\n    args: ["${join(app, 'upstream.mjs')}"]`, 'policy: ./policy.yaml', 'store: { sqlite: .countersign/countersign.sqlite }', 'principal: alice', 'lock: ./mcp.lock.json'].join('\n'),
    );
    // The walkthrough: pin the upstream's definitions with the installed CLI, then the desktop app launches the gateway.
    run(node, [cli(), 'mcp', 'pin', '--config', join(home, 'gateway.yaml')], home);
    expect(JSON.parse(readFileSync(join(home, 'mcp.lock.json'), 'utf8'))).toBeTruthy();
    const desktopConfig = { mcpServers: { countersign: { command: node, args: [cli(), 'mcp', '--config', join(home, 'gateway.yaml')], env: { HOME: home } } } };
    writeFileSync(join(home, 'claude_desktop_config.json'), JSON.stringify(desktopConfig, null, 2));
    writeFileSync(join(app, 'desktop-client.mjs'), DESKTOP_CLIENT);
    // Started from another folder, like a desktop app: everything comes from the config's absolute paths.
    const out = run(node, [join(app, 'desktop-client.mjs'), join(home, 'claude_desktop_config.json')], tmpdir());
    expect(JSON.parse(out)).toEqual({ tools: ['echo'], result: [{ type: 'text', text: 'echo: hello from the desktop' }] });
  }, 120_000);

  it('a TypeScript file type-checks against the installed types (strict, nodenext), with TypeScript 7', () => {
    expectTypeChecks(TYPESCRIPT_7, app);
  }, 120_000);

  it("TypeScript 5 reads the declarations TypeScript 7 emitted: the app's files and every integration's program type-check with it, each against its own folder's types (strict, nodenext)", () => {
    // One run for both sets: a second start of the JavaScript compiler would parse Node's types
    // and the standard library again. Each file still resolves its imports from its own folder.
    expectTypeChecks(TYPESCRIPT_5, work, 'tsconfig.typescript-5.json');
  }, 300_000);

  it('each integration is installed alone: its folder holds core, that integration and what it declares, no other package of ours', () => {
    for (const { name, ours = [] } of INTEGRATIONS) expect(readdirSync(join(work, name, 'node_modules', '@countersign')).sort(), name).toEqual(['core', ...ours, name].sort());
  });

  it("every integration's program type-checks against the types installed in its own folder, with plain tsc 7 (strict, nodenext)", () => {
    // One compiler run for all six: each file resolves its imports from the node_modules of its own folder.
    expectTypeChecks(TYPESCRIPT_7, work);
  }, 300_000);

  it.concurrent.each(INTEGRATIONS)('@countersign/$name runs its program on plain node in its own folder', async ({ name, program, lastLine }) => {
    const dir = join(work, name);
    copyFileSync(program, join(dir, basename(program)));
    const { stdout } = await runAsync(node, [basename(program)], { cwd: dir, env: { PATH: env.PATH, HOME: dir }, timeout: 120_000 });
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(lastLine);
  }, 180_000);

  it('the installed countersign command runs; on Node < 22.18 it says which Node it needs', () => {
    // Its compiled modules are cached in the user's cache folder, never in the shared temporary folder.
    const cacheHome = join(work, 'user-cache');
    const sharedTmp = join(work, 'shared-tmp');
    mkdirSync(sharedTmp);
    expect(run(node, [cli(), '--help'], app, { XDG_CACHE_HOME: cacheHome, TMPDIR: sharedTmp })).toContain('Usage: countersign');
    expect(readdirSync(join(cacheHome, 'countersign', 'compile-cache')).length).toBeGreaterThan(0);
    expect(readdirSync(sharedTmp)).toEqual([]);
    if (!existsSync(OLD_NODE)) return;
    const old = spawnSync(OLD_NODE, [cli(), '--help'], { cwd: app, encoding: 'utf8' });
    const version = spawnSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (Number(version.split('.')[0]) >= 23 || (version.startsWith('22.') && Number(version.split('.')[1]) >= 18)) return;
    expect(old.status).toBe(2);
    expect(old.stderr).toContain(`Countersign needs Node >= 22.18 (found ${version})`);
  });
});

/** The README's in-process example ("In process (any framework)"): a complete program, run here as a user would. */
const IN_PROCESS_PROGRAM = readmeTsBlocks().find((block) => block.heading.startsWith('In process') && !block.fragment)!.code;

/** The README's agent ("From an agent process"): a complete program, run here as a user would. */
const AGENT_PROGRAM = readmeTsBlocks().find((block) => block.heading.startsWith('From an agent process'))!.code;

/** A one-tool MCP server on the stock SDK. */
const UPSTREAM_SERVER = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
const server = new McpServer({ name: 'local', version: '1.0.0' });
server.registerTool('echo', { description: 'Echo a text', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text: 'echo: ' + text }] }));
await server.connect(new StdioServerTransport());
`;

/** What a desktop app does with its config: launch the server's command with its args and env, speak MCP over stdio. */
const DESKTOP_CLIENT = `import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const { command, args, env } = JSON.parse(readFileSync(process.argv[2], 'utf8')).mcpServers.countersign;
const client = new Client({ name: 'desktop', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command, args, env, stderr: 'inherit' }));
const { tools } = await client.listTools();
const result = await client.callTool({ name: 'echo', arguments: { text: 'hello from the desktop' } });
await client.close();
console.log(JSON.stringify({ tools: tools.map((t) => t.name), result: result.content }));
`;

/** Uses the packages' types the way an application does: wrong field names or narrowing would fail here. */
const TYPED_PROGRAM = `import { createClient, type CountersignClient } from '@countersign/client';
import { Gate, type ProposeOutcome } from '@countersign/core';
import { createApp, startServer, type ServerOptions } from '@countersign/server';
import { linkedPair } from '@countersign/server/testing';
const client: CountersignClient = createClient({ baseUrl: 'http://127.0.0.1:8787', token: 't' });
export function idOf(outcome: ProposeOutcome): string | undefined {
  return outcome.status === 'approval_required' ? outcome.requestId : undefined;
}
export const surfaces = [client.baseUrl, Gate, createApp, startServer, linkedPair] as const;
export type Options = ServerOptions;
`;
