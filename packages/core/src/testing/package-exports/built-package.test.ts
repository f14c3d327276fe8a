import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedBuild } from './build-cache.ts';
import { builtPackageCache } from './built-package.ts';

const realRepo = join(import.meta.dirname, '..', '..', '..', '..', '..');

describe('one shared build per package per run (built-package.ts)', () => {
  // A workspace of two packages: `@countersign/app` needs the built types of `@countersign/lib`.
  const root = mkdtempSync(join(tmpdir(), 'countersign-built-package-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('package.json', JSON.stringify({ workspaces: ['packages/app', 'packages/lib'] }));
  write('tsconfig.base.json', JSON.stringify({ compilerOptions: { module: 'nodenext', strict: true, declaration: true, types: [], lib: ['es2015'], skipLibCheck: true } }));
  for (const name of ['app', 'lib']) {
    const dependencies = name === 'app' ? { '@countersign/lib': '1.0.0' } : {};
    write(`packages/${name}/package.json`, JSON.stringify({ name: `@countersign/${name}`, version: '1.0.0', type: 'module', exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } }, dependencies }));
    write(`packages/${name}/tsconfig.build.json`, JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { outDir: 'dist', rootDir: 'src' }, include: ['src'] }));
  }
  write('packages/lib/src/index.ts', 'export const answer: number = 42;\n');
  write('packages/app/src/index.ts', "import { answer } from '@countersign/lib';\nexport const doubled: number = answer * 2;\n");
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(join(realRepo, 'node_modules', 'typescript'), join(root, 'node_modules', 'typescript'));
  const builtJs = (cache: string) => readFileSync(join(cache, 'dist', 'index.js'), 'utf8');

  let app = '';
  let lib = '';
  it('builds a package after what it needs, against its built types', async () => {
    app = await builtPackageCache(root, '@countersign/app');
    lib = await builtPackageCache(root, '@countersign/lib');
    expect(builtJs(app)).toContain('answer * 2');
    expect(existsSync(join(app, 'dist', 'index.d.ts'))).toBe(true);
    expect(builtJs(lib)).toContain('42');
    // The copy it was built from is not kept in the cache.
    expect(existsSync(join(app, 'scratch'))).toBe(false);
  }, 120_000);

  it('a second caller reuses the build: same folder, nothing rebuilt', async () => {
    writeFileSync(join(app, 'dist', 'marker'), '');
    expect(await builtPackageCache(root, '@countersign/app')).toBe(app);
    expect(existsSync(join(app, 'dist', 'marker'))).toBe(true);
  });

  it('a changed source is rebuilt, and so is what needs it; what it needs is not', async () => {
    write('packages/app/src/index.ts', "import { answer } from '@countersign/lib';\nexport const tripled: number = answer * 3;\n");
    const app2 = await builtPackageCache(root, '@countersign/app');
    expect(app2).not.toBe(app);
    expect(builtJs(app2)).toContain('answer * 3');
    expect(await builtPackageCache(root, '@countersign/lib')).toBe(lib);

    write('packages/lib/src/index.ts', 'export const answer: number = 43;\n');
    const app3 = await builtPackageCache(root, '@countersign/app');
    const lib3 = await builtPackageCache(root, '@countersign/lib');
    expect(lib3).not.toBe(lib);
    expect(builtJs(lib3)).toContain('43');
    expect(app3).not.toBe(app2);
  }, 120_000);

  it('another compiler is another build: the same sources are built again, into another folder', async () => {
    const compiler = join(root, 'node_modules', 'typescript');
    const before = await builtPackageCache(root, '@countersign/lib');
    // The same compiler under another version: a manifest of its own beside the real bin/.
    rmSync(compiler);
    mkdirSync(compiler);
    writeFileSync(join(compiler, 'package.json'), JSON.stringify({ name: 'typescript', version: '7.99.0' }));
    symlinkSync(join(realRepo, 'node_modules', 'typescript', 'bin'), join(compiler, 'bin'));
    const after = await builtPackageCache(root, '@countersign/lib');
    expect(after).not.toBe(before);
    expect(builtJs(after)).toBe(builtJs(before));
    rmSync(compiler, { recursive: true });
    symlinkSync(join(realRepo, 'node_modules', 'typescript'), compiler);
  }, 120_000);

  it('a source tsc cannot compile fails the build and leaves no cache behind, so the next caller builds again', async () => {
    // A syntax error: test builds emit without type-checking (npm test checks types in its own step).
    write('packages/lib/src/index.ts', 'export const answer: number = ;\n');
    // buildInto expects tsc to print nothing: the failure carries the compiler's output.
    const compilerOutput = async () => String(((await builtPackageCache(root, '@countersign/lib').catch((error: unknown) => error)) as { actual?: unknown }).actual);
    expect(await compilerOutput()).toMatch(/TS1109/);
    expect(await compilerOutput()).toMatch(/TS1109/);
  }, 120_000);
});

describe('cachedBuild', () => {
  const root = mkdtempSync(join(tmpdir(), 'countersign-build-cache-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('callers arriving together build once; the others wait and reuse it', async () => {
    let builds = 0;
    const build = async (staging: string) => {
      builds += 1;
      mkdirSync(staging);
      await new Promise((resolve) => setImmediate(resolve));
      writeFileSync(join(staging, 'out'), 'built');
    };
    const folders = await Promise.all([1, 2, 3].map(() => cachedBuild(join(root, 'one'), build)));
    expect(builds).toBe(1);
    expect(new Set(folders)).toEqual(new Set([join(root, 'one')]));
    expect(readFileSync(join(root, 'one', 'out'), 'utf8')).toBe('built');
  });

  it('a build that throws leaves neither cache nor lock, so the next caller builds', async () => {
    await expect(
      cachedBuild(join(root, 'two'), (staging) => {
        mkdirSync(staging);
        throw new Error('tsc failed');
      }),
    ).rejects.toThrow('tsc failed');
    expect(existsSync(join(root, 'two'))).toBe(false);
    expect(existsSync(join(root, 'two.lock'))).toBe(false);
    expect(existsSync(join(root, `two.staging-${process.pid}`))).toBe(false);
    let builds = 0;
    await cachedBuild(join(root, 'two'), (staging) => {
      builds += 1;
      mkdirSync(staging);
    });
    expect(builds).toBe(1);
  });
});
