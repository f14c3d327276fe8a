import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPackages } from './build-packages.ts';
import { assertAcyclic, readWorkspace, selectWithNeeds } from './workspace-graph.ts';

const repo = join(import.meta.dirname, '..', '..');
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');

describe('which packages `npm run build -- NAME` builds', () => {
  const workspace = readWorkspace(repo);
  const names = (asked: string[]) => selectWithNeeds(workspace, asked).map((pkg) => pkg.name).sort();

  it('the CLI with the libraries it wires, nothing else (no integration)', () => {
    expect(names(['@countersign/cli'])).toEqual(
      ['cli', 'client', 'core', 'mcp', 'proxy', 'semantic', 'server', 'store-postgres', 'store-sqlite'].map((n) => `@countersign/${n}`),
    );
    expect(names(['cli'])).toEqual(names(['@countersign/cli']));
    expect(names(['packages/cli/'])).toEqual(names(['@countersign/cli']));
  });

  it('an integration with core alone; nothing asked is everything', () => {
    expect(names(['ai-sdk'])).toEqual(['@countersign/ai-sdk', '@countersign/core']);
    expect(names([])).toHaveLength(workspace.length);
  });

  it('a name no package has is refused, not skipped', () => {
    expect(() => names(['countersign'])).toThrow(/no workspace package named "countersign"/);
  });

  it('a dependency cycle is refused: no build order exists', () => {
    const cycle = [
      { name: 'a', folder: 'a', needs: ['b'] },
      { name: 'b', folder: 'b', needs: ['a'] },
    ];
    expect(() => assertAcyclic(cycle)).toThrow('workspace dependency cycle: a → b → a');
  });
});

describe('buildPackages on a fresh checkout', () => {
  // Two packages, the one that imports the other listed first (the order that broke the
  // one-pass build of a fresh clone): `app` needs the built types of `lib`.
  const root = mkdtempSync(join(tmpdir(), 'countersign-build-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('package.json', JSON.stringify({ workspaces: ['app', 'lib'] }));
  write('tsconfig.base.json', JSON.stringify({ compilerOptions: { module: 'nodenext', strict: true, declaration: true, types: [], lib: ['es2015'], skipLibCheck: true } }));
  for (const name of ['app', 'lib']) {
    const dependencies = name === 'app' ? { lib: '1.0.0' } : {};
    write(`${name}/package.json`, JSON.stringify({ name, version: '1.0.0', type: 'module', exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } }, dependencies }));
    write(`${name}/tsconfig.build.json`, JSON.stringify({ extends: '../tsconfig.base.json', compilerOptions: { outDir: 'dist', rootDir: 'src' }, include: ['src'] }));
  }
  write('lib/src/index.ts', 'export const answer: number = 42;\n');
  write('app/src/index.ts', "import { answer } from 'lib';\nexport const doubled: number = answer * 2;\n");
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(join(root, 'lib'), join(root, 'node_modules', 'lib'));
  const workspace = readWorkspace(root);

  it('builds what a package needs before it, in one pass', async () => {
    const result = await buildPackages(root, workspace, { tsc, jobs: 2 });
    expect(result.built).toEqual(['lib', 'app']);
  }, 120_000);

  it('a second build builds nothing; a changed source rebuilds its package, not what it needs', async () => {
    expect(await buildPackages(root, workspace, { tsc })).toEqual({ built: [], upToDate: ['lib', 'app'] });
    const later = new Date(Date.now() + 1_000);
    utimesSync(join(root, 'app', 'src', 'index.ts'), later, later);
    expect(await buildPackages(root, workspace, { tsc })).toEqual({ built: ['app'], upToDate: ['lib'] });
    // The source was dated a second ahead; a rebuild within that second leaves dist/ looking
    // older than it. Date it back so the tests below start from an up-to-date tree.
    const before = new Date(Date.now() - 60_000);
    utimesSync(join(root, 'app', 'src', 'index.ts'), before, before);
    expect(await buildPackages(root, workspace, { tsc })).toEqual({ built: [], upToDate: ['lib', 'app'] });
  }, 120_000);

  it('a changed test file needs no build: no tsconfig.build.json compiles tests', async () => {
    write('app/src/index.test.ts', 'export {};\n');
    expect((await buildPackages(root, workspace, { tsc })).built).toEqual([]);
  });

  it('another compiler installed rebuilds every package: what the one before emitted is stale', async () => {
    write('node_modules/typescript/package.json', JSON.stringify({ name: 'typescript', version: '0.0.0' }));
    expect((await buildPackages(root, workspace, { tsc })).built).toEqual(['lib', 'app']);
  }, 120_000);

  it('a changed dependency rebuilds what needs it, and a type error there fails the build with the compiler\'s message', async () => {
    // app's sources are unchanged: only the rebuild of lib makes it stale, and only its rebuild finds the error.
    write('lib/src/index.ts', "export const answer: string = '42';\n");
    await expect(buildPackages(root, workspace, { tsc })).rejects.toThrow(/build of app failed:[\s\S]*TS2362/);
  }, 120_000);
});
