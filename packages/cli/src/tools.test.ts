import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definitionDigest } from '@countersign/core/gate';
import { openSqliteStore } from '@countersign/store-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from './serve/testing/postgres.ts';
import { runCaptured } from './testing/capture-io.ts';

const root = mkdtempSync(join(tmpdir(), 'countersign-cli-tools-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const freshDir = () => mkdtempSync(join(root, 'case-'));

const LOOKUP = { name: 'lookup', description: 'Looks a customer up.' };
const TRANSFER_DIGEST = 'ab'.repeat(32);
const PIN_FILE = `tools:\n  transfer: ${TRANSFER_DIGEST}\n  lookup:\n    name: lookup\n    description: Looks a customer up.\n`;

async function emptyDb(cwd: string): Promise<string> {
  const path = join(cwd, 'db.sqlite');
  await openSqliteStore({ path }).close();
  return path;
}

describe('countersign tools pin / list', () => {
  it('pins from a file with the gate\'s operation (audited via pin_file); list shows each tool trusted', async () => {
    const cwd = freshDir();
    await emptyDb(cwd);
    writeFileSync(join(cwd, 'pins.yaml'), PIN_FILE);
    expect((await runCaptured(['tools', 'list', '--db', 'db.sqlite'], { cwd })).stdout).toMatch(/^no tools pinned or registered in /);

    const pinned = await runCaptured(['tools', 'pin', 'pins.yaml', '--db', 'db.sqlite', '--actor', 'ops:carol'], { cwd });
    expect(pinned).toMatchObject({ code: 0, stderr: '' });
    expect(pinned.stdout).toContain(`transfer  trusted ${TRANSFER_DIGEST}`);

    const listed = await runCaptured(['tools', 'list', '--db', 'db.sqlite', '--json'], { cwd });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual({
      ok: true,
      source: expect.stringContaining('db.sqlite'),
      tools: [
        { name: 'lookup', status: 'trusted', trustedDigest: definitionDigest(LOOKUP), pendingDigest: null, registeredBy: null, registeredDigest: null, reviewRequestId: null },
        { name: 'transfer', status: 'trusted', trustedDigest: TRANSFER_DIGEST, pendingDigest: null, registeredBy: null, registeredDigest: null, reviewRequestId: null },
      ],
    });
    const text = await runCaptured(['tools', 'list', '--db', 'db.sqlite'], { cwd });
    expect(text.stdout).toMatch(/TOOL +STATUS +TRUSTED +PENDING +REGISTERED BY +REVIEW/);
    expect(text.stdout).toMatch(new RegExp(`transfer +trusted +${TRANSFER_DIGEST.slice(0, 12)} +- +- +-`));

    const store = openSqliteStore({ path: join(cwd, 'db.sqlite') });
    try {
      const records = (await store.audit.read()).filter((r) => r.type === 'definition_pinned');
      expect(records.map((r) => [r.toolName, r.actor, r.detail])).toEqual([
        ['transfer', 'ops:carol', { status: 'trusted', digest: TRANSFER_DIGEST, previousDigest: null, via: 'pin_file' }],
        ['lookup', 'ops:carol', { status: 'trusted', digest: definitionDigest(LOOKUP), previousDigest: null, via: 'pin_file' }],
      ]);
      // The whole definition was recorded, so the review page can show it later.
      expect(await store.definitions.getDefinitionText(definitionDigest(LOOKUP))).toBeDefined();
    } finally {
      await store.close();
    }
  });

  it('shows who registered a tool and that it is not reviewed yet', async () => {
    const cwd = freshDir();
    const path = await emptyDb(cwd);
    const store = openSqliteStore({ path });
    await store.definitions.register({ toolName: 'lookup', definitionDigest: definitionDigest(LOOKUP), agent: 'agent-7', updatedAt: 1 });
    await store.close();
    const listed = JSON.parse((await runCaptured(['tools', 'list', '--db', 'db.sqlite', '--json'], { cwd })).stdout);
    expect(listed.tools).toEqual([
      { name: 'lookup', status: 'unpinned', trustedDigest: null, pendingDigest: null, registeredBy: 'agent-7', registeredDigest: definitionDigest(LOOKUP), reviewRequestId: null },
    ]);
  });

  it('an invalid pin file is a "no" (exit 1) and touches no store; I/O and usage problems exit 2', async () => {
    const cwd = freshDir();
    const bad = {
      'digest.yaml': 'tools:\n  transfer: not-a-digest\n',
      'extra.yaml': `tools:\n  transfer: ${TRANSFER_DIGEST}\nmore: 1\n`,
      'renamed.yaml': 'tools:\n  transfer:\n    name: lookup\n',
      'empty.yaml': 'tools: {}\n',
      'reserved.json': JSON.stringify({ tools: { 'bad name\u0000': TRANSFER_DIGEST } }),
    };
    for (const [file, text] of Object.entries(bad)) {
      writeFileSync(join(cwd, file), text);
      const run = await runCaptured(['tools', 'pin', file, '--db', 'db.sqlite', '--json'], { cwd });
      expect(run.code, file).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, file, reason: 'invalid_pin_file' });
    }
    const text = await runCaptured(['tools', 'pin', 'digest.yaml', '--db', 'db.sqlite'], { cwd });
    expect(text.stdout).toMatch(/^digest\.yaml: invalid pin file: tools\.transfer: a digest is 64 lower-case hex characters/);
    expect(existsSync(join(cwd, 'db.sqlite'))).toBe(false);

    expect((await runCaptured(['tools', 'pin', 'missing.yaml'], { cwd })).code).toBe(2);
    expect((await runCaptured(['tools', 'list', '--db', 'nowhere.sqlite'], { cwd })).code).toBe(2);
    expect((await runCaptured(['tools', 'list', '--db', 'a', '--database-url', 'postgres://x/y'], { cwd })).code).toBe(2);
    expect((await runCaptured(['tools', 'pin'], { cwd })).code).toBe(2);
    expect((await runCaptured(['tools', 'list', 'extra'], { cwd })).code).toBe(2);
  });
});

describePg('countersign tools on Postgres', () => {
  const schema = randomSchema();
  afterAll(() => dropSchema(schema));

  it('pins and lists with --database-url / --pg-schema', async () => {
    const cwd = freshDir();
    writeFileSync(join(cwd, 'pins.yaml'), PIN_FILE);
    const store = ['--database-url', TEST_PG_URL, '--pg-schema', schema];
    expect((await runCaptured(['tools', 'pin', 'pins.yaml', ...store], { cwd })).code).toBe(0);
    const listed = JSON.parse((await runCaptured(['tools', 'list', ...store, '--json'], { cwd })).stdout);
    expect(listed.tools.map((t: { name: string; status: string }) => [t.name, t.status])).toEqual([
      ['lookup', 'trusted'],
      ['transfer', 'trusted'],
    ]);
  });
});
