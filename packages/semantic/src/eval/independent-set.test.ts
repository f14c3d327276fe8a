import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Dataset, loadDataset } from './datasets.ts';

/**
 * The independent evaluation set (data/independent, see its SOURCE.md) is frozen: written blind
 * to the matcher and never tuned on. These tests check that it is well-formed, that its counts
 * are the ones SOURCE.md documents, and that no file has changed since it was frozen.
 */

const DIR = new URL('../../data/independent/', import.meta.url);

type Counts = { correct: number; wrong: number; null: number };

/** Per file: SHA-256 at freeze time and the class counts stated in SOURCE.md. */
const FILES: Record<string, { sha256: string; classes: Counts }> = {
  'productivity.json': { sha256: 'ec0fc9ea8b926e6e8e1f090eca1c4cf3581f8e743bb678effa33e530d941e3ee', classes: { correct: 58, wrong: 28, null: 31 } },
  'finance-hr.json': { sha256: '801a99d71ac76c0d8cc52b3d50a20901ce83b2064b2eff40d4cbb29456199080', classes: { correct: 48, wrong: 26, null: 19 } },
  'devops.json': { sha256: '91186dce60552d73ad3cd2d1e3b8b9540b211997f4c556ac608c0b2d42d6d129', classes: { correct: 52, wrong: 22, null: 28 } },
  'home-travel-weather.json': { sha256: '5fee58af38acac519818ae82f6c2979fdd19839a462e687798f2d325d4b88ce0', classes: { correct: 35, wrong: 13, null: 14 } },
  'devops-stuffed-descriptions.json': { sha256: 'e5e8b61873599dbfdc59c0cd18b7fd8821b1afab41826bc7dbd7706ea5f05931', classes: { correct: 10, wrong: 5, null: 15 } },
};

/** Per category (the middle part of each id), over all files: the table in SOURCE.md. */
const CATEGORIES: Record<string, Counts> = {
  para: { correct: 131, wrong: 0, null: 0 },
  near: { correct: 0, wrong: 53, null: 0 },
  cross: { correct: 0, wrong: 0, null: 17 },
  unrel: { correct: 0, wrong: 0, null: 29 },
  short: { correct: 0, wrong: 0, null: 20 },
  named: { correct: 13, wrong: 12, null: 1 },
  de: { correct: 14, wrong: 5, null: 3 },
  es: { correct: 14, wrong: 5, null: 3 },
  paste: { correct: 8, wrong: 6, null: 10 },
  accept: { correct: 6, wrong: 5, null: 5 },
  long: { correct: 7, wrong: 3, null: 4 },
  stuffed: { correct: 10, wrong: 5, null: 15 },
};

const ROLES = new Set(['user', 'assistant', 'tool', 'system']);

/** What is wrong with one file's raw records and its loaded dataset; empty when well-formed. */
function problemsOf(raw: { records: { id?: unknown; tool?: { server?: unknown } }[] }, dataset: Dataset): string[] {
  const problems: string[] = [];
  const { catalogue, records } = dataset;
  if (catalogue.length < 20 || catalogue.length > 40) problems.push(`catalogue has ${catalogue.length} tools`);
  const names = new Set(catalogue.map((t) => `${t.server}/${t.name}`));
  if (names.size !== catalogue.length) problems.push('catalogue repeats a tool');
  for (const t of catalogue) {
    if (typeof t.server !== 'string' || !t.description) problems.push(`${t.name}: no server or description`);
    for (const [p, spec] of Object.entries(t.parameters ?? {})) {
      if (!spec.type || !spec.description) problems.push(`${t.name}.${p}: no type or description`);
    }
  }
  raw.records.forEach((r, i) => {
    if (typeof r.id !== 'string') problems.push(`record ${i}: no id`);
    if (typeof r.tool?.server !== 'string') problems.push(`record ${i}: no tool.server`);
  });
  for (const r of records) {
    if (!names.has(`${r.tool.server}/${r.tool.name}`)) problems.push(`${r.id}: tool ${r.tool.server}/${r.tool.name} not in catalogue`);
    if (r.task.trim() === '') problems.push(`${r.id}: empty task`);
    if ('conversation' in r) {
      if (!r.conversation.some((m) => m.role === 'user')) problems.push(`${r.id}: conversation without a user message`);
      for (const m of r.conversation) {
        if (!ROLES.has(m.role) || typeof m.content !== 'string' || m.content === '') problems.push(`${r.id}: bad message`);
      }
    }
  }
  return problems;
}

function classCounts(records: Dataset['records']): Counts {
  const counts: Counts = { correct: 0, wrong: 0, null: 0 };
  for (const r of records) counts[r.class]++;
  return counts;
}

const loaded = Object.keys(FILES).map((file) => {
  const path = new URL(file, DIR).pathname;
  const text = readFileSync(path, 'utf8');
  return { file, text, raw: JSON.parse(text), dataset: loadDataset(path) };
});

describe('independent evaluation set', () => {
  it.each(loaded)('$file is well-formed', ({ raw, dataset }) => {
    expect(dataset.records.length).toBeGreaterThan(0);
    expect(problemsOf(raw, dataset)).toEqual([]);
  });

  it.each(loaded)('$file has the class counts SOURCE.md states', ({ file, dataset }) => {
    expect(classCounts(dataset.records)).toEqual(FILES[file]?.classes);
  });

  it.each(loaded)('$file is frozen: its bytes are the ones committed at freeze time', ({ file, text }) => {
    expect(createHash('sha256').update(text).digest('hex')).toBe(FILES[file]?.sha256);
  });

  it('has ids unique across all files, each naming a documented category', () => {
    const ids = loaded.flatMap(({ dataset }) => dataset.records.map((r) => r.id));
    expect(new Set(ids).size).toBe(ids.length);
    const byCategory: Record<string, Counts> = {};
    for (const { dataset } of loaded) {
      for (const r of dataset.records) {
        const category = r.id.split('-')[1] ?? '';
        byCategory[category] ??= { correct: 0, wrong: 0, null: 0 };
        byCategory[category][r.class]++;
      }
    }
    expect(byCategory).toEqual(CATEGORIES);
    const total = classCounts(loaded.flatMap(({ dataset }) => dataset.records));
    expect(total).toEqual({ correct: 203, wrong: 94, null: 107 });
  });

  it('puts the real instruction after a paste of over 2,000 characters in every long record', () => {
    const long = loaded.flatMap(({ dataset }) => dataset.records.filter((r) => r.id.includes('-long-')));
    expect(long).toHaveLength(14);
    for (const r of long) {
      const users = 'conversation' in r ? r.conversation.filter((m) => m.role === 'user') : [];
      const last = users.at(-1)?.content ?? '';
      expect(last.length, r.id).toBeGreaterThan(2000);
      // The instruction is the final paragraph, after the paste.
      expect(last.slice(last.lastIndexOf('\n\n') + 2).length, r.id).toBeLessThan(200);
    }
  });

  it('differs from the plain devops catalogue only in the two stuffed descriptions', () => {
    const plain = loaded.find((l) => l.file === 'devops.json')!.dataset.catalogue;
    const stuffed = loaded.find((l) => l.file === 'devops-stuffed-descriptions.json')!.dataset.catalogue;
    const changed = stuffed.filter((t, i) => JSON.stringify(t) !== JSON.stringify(plain[i])).map((t) => t.name);
    expect(changed).toEqual(['grant_role', 'export_table']);
    for (const name of changed) {
      const before = plain.find((t) => t.name === name)!.description!;
      const after = stuffed.find((t) => t.name === name)!.description!;
      expect(after.startsWith(before) && after.length > before.length).toBe(true);
    }
  });

  it('the well-formedness check reports a missing tool, a server-less record and a user-less conversation', () => {
    const { raw, dataset } = loaded[0]!;
    const [first, second] = dataset.records;
    const broken: Dataset = {
      ...dataset,
      records: [
        { ...first!, id: 'x-missing-01', tool: { server: 'mail', name: 'wire_money' } },
        { ...second!, id: 'x-conversation-01', conversation: [{ role: 'assistant', content: 'Shall I?' }], template: 'stated' },
      ],
    };
    const problems = problemsOf({ records: [{ id: 'x', tool: {} }] }, broken);
    expect(problems).toEqual([
      'record 0: no tool.server',
      'x-missing-01: tool mail/wire_money not in catalogue',
      'x-conversation-01: conversation without a user message',
    ]);
    expect(problemsOf(raw, dataset)).toEqual([]);
  });
});
