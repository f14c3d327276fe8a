import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLocalExtractor } from '../extract/local-extractor.ts';
import { createLocalMatcher } from '../local/local-matcher.ts';
import type { TaskToolMatcher } from '../matcher/types.ts';
import { multiTurnFileText } from './build-multi-turn-file.ts';
import { splitOf } from './casa.ts';
import { DatasetError, type Dataset, DEV_SET_FILE, DEV2_SET_FILE, evalSetNames, loadDataset, MULTI_TURN_FILE } from './datasets.ts';
import { formatReport } from './format-report.ts';
import { runEval } from './run-eval.ts';

const single = loadDataset('single');
const small: Dataset = { ...single, records: single.records.filter((_, i) => i % 8 === 0) };
const fixed = (decision: 'match' | 'mismatch'): TaskToolMatcher => ({ id: `always-${decision}`, match: async () => ({ decision, score: 1, matcher: 'x' }) });

describe('evaluation harness', () => {
  it('vendors the whole CASA set: 200 records, 100/80/20, 140 tools', () => {
    expect(single.records).toHaveLength(200);
    expect(single.catalogue).toHaveLength(140);
    const count = (c: string) => single.records.filter((r) => r.class === c).length;
    expect([count('correct'), count('wrong'), count('null')]).toEqual([100, 80, 20]);
    // Every requested tool is a real tool of the vendored catalogues.
    for (const r of single.records) expect(r.tool.description, r.id).toBeTypeOf('string');
  });

  it('the split is fixed by the record id', () => {
    expect(single.records.filter((r) => r.split === 'holdout')).toHaveLength(64);
    for (const r of single.records) expect(r.split).toBe(splitOf(r.id));
  });

  it('an always-allow matcher has FPR 1 and an always-deny matcher FNR 1', async () => {
    const allow = await runEval(small, { matcher: fixed('match') });
    expect(allow.metrics.falsePositiveRate).toBe(1);
    expect(allow.metrics.falseNegativeRate).toBe(0);
    const deny = await runEval(small, { matcher: fixed('mismatch') });
    expect(deny.metrics.falseNegativeRate).toBe(1);
    expect(deny.metrics.falsePositiveRate).toBe(0);
    expect(allow.bySplit!.tune.count + allow.bySplit!.holdout.count).toBe(25);
  });

  it('a matcher that hangs or throws counts as uncertain (denied), never allowed', async () => {
    const hangs: TaskToolMatcher = { id: 'hangs', match: () => new Promise(() => {}) };
    const report = await runEval({ ...small, records: small.records.slice(0, 3) }, { matcher: hangs, timeoutMs: 20 });
    expect(report.metrics.falsePositives + report.metrics.truePositives).toBe(0);
    const throws: TaskToolMatcher = { id: 'throws', match: async () => { throw new Error('boom'); } };
    const r2 = await runEval({ ...small, records: small.records.slice(0, 3) }, { matcher: throws });
    expect(Object.values(r2.metrics.confusion).reduce((n, c) => n + c.uncertain, 0)).toBe(3);
  });

  it('runs the local matcher on a subset and prints the table', async () => {
    const report = await runEval(small, { matcher: createLocalMatcher(), split: 'all' });
    expect(report.metrics.count).toBe(25);
    expect(report.metrics.accuracy).toBeGreaterThan(0.6);
    const text = formatReport(report);
    expect(text).toContain('| tune |');
    expect(text).toContain('| holdout |');
    expect(text).toMatch(/to a person \(uncertain\): \d+ of \d+ \(correct \d+, wrong \d+, null \d+\); FNR with uncertain counted apart/);
    expect(text).toMatch(/\| correct \| \d+ \| \d+ \| \d+ \|/);
  });

  it('multi-turn: extracts then matches, and needs an extractor', async () => {
    const multi = loadDataset('multi');
    expect(multi.records).toHaveLength(200);
    const subset: Dataset = { ...multi, records: multi.records.slice(0, 12) };
    await expect(runEval(subset, { matcher: createLocalMatcher() })).rejects.toThrow(/extractor/);
    const report = await runEval(subset, { matcher: createLocalMatcher(), extractor: createLocalExtractor() });
    expect(report.extraction).toMatchObject({ count: 12, failed: 0, containsOriginal: 12 });
  });

  it('the committed multi-turn file is exactly what the generator writes', () => {
    expect(readFileSync(MULTI_TURN_FILE, 'utf8')).toBe(multiTurnFileText());
  });

  it('a bad dataset file is a typed DatasetError', () => {
    const read = (text: string) => () => text;
    expect(() => loadDataset('x.json', read('not json'))).toThrow(DatasetError);
    expect(() => loadDataset('x.json', read('{"records": 3}'))).toThrow(/records/);
    expect(() => loadDataset('x.json', read('{"records": [{"task": "t", "tool": {"name": "get_me"}, "class": "maybe"}]}'))).toThrow(/class/);
    expect(() => loadDataset('x.json', read('{"records": [{"tool": {"name": "get_me"}, "class": "correct"}]}'))).toThrow(/task or a conversation/);
    const ok = loadDataset('x.json', read('{"records": [{"id": "a", "task": "who am I", "tool": {"server": "github-official", "name": "get_me"}, "class": "correct"}]}'));
    expect(ok.records[0]!.tool.description).toBeTypeOf('string');
  });
});

describe('the sets the harness reports', () => {
  it('lists CASA, the two dev sets, then every JSON file of the independent folder, sorted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-independent-'));
    writeFileSync(join(dir, 'b.json'), '{}');
    writeFileSync(join(dir, 'a.json'), '{}');
    writeFileSync(join(dir, 'SOURCE.md'), '');
    const names = evalSetNames(pathToFileURL(`${dir}/`));
    expect(names).toEqual(['single', 'multi', DEV_SET_FILE.pathname, DEV2_SET_FILE.pathname, join(dir, 'a.json'), join(dir, 'b.json')]);
    expect(evalSetNames(pathToFileURL(join(dir, 'missing/')))).toHaveLength(4);
    expect(loadDataset(DEV_SET_FILE.pathname).name).toBe('dev/dev-set.json');
    expect(loadDataset(DEV2_SET_FILE.pathname).name).toBe('dev2/dev2-set.json');
  });
});

describe('dataset files written by others', () => {
  it('accept a JSON null class and MCP tool definitions (inputSchema) in the catalogue', () => {
    const text = JSON.stringify({
      records: [{ id: 'x1', task: 'what is the weather in Oslo', tool: { server: 'wx', name: 'get_forecast' }, class: null }],
      catalogue: [{ server: 'wx', name: 'get_forecast', description: 'Weather forecast for a city.', inputSchema: { properties: { city: { description: 'City name', type: 'string' } } } }],
    });
    const dataset = loadDataset('independent.json', () => text);
    expect(dataset.records[0]).toMatchObject({ class: 'null', tool: { name: 'get_forecast', parameters: { city: { description: 'City name' } } } });
    expect(() => loadDataset('bad.json', () => JSON.stringify({ records: [], catalogue: [{ description: 'no name' }] }))).toThrow(DatasetError);
  });
});
