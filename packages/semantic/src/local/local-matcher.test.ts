import { describe, expect, it } from 'vitest';
import { loadCasaCatalogue } from '../eval/casa.ts';
import type { MatchInput, MatchTool } from '../matcher/types.ts';
import { createLocalMatcher } from './local-matcher.ts';

// The seed's example: a coding agent with a GitHub server and a read-only database server.
const seedCatalogue: MatchTool[] = [
  ...loadCasaCatalogue().filter((t) => t.server === 'github-official'),
  {
    server: 'github-official',
    name: 'list_workflow_runs',
    description: 'List workflow runs (CI builds and test runs) for a repository, filtered by status such as failure or success.',
    parameters: { repo: { description: 'Repository name', type: 'string' }, status: { description: 'Run status: failure, success', type: 'string' } },
  },
  { server: 'db-readonly', name: 'export_full_users_table', description: 'Export every row of the users table as CSV.', parameters: {} },
  { server: 'db-readonly', name: 'run_query', description: 'Run a read-only SQL query against the database.', parameters: { sql: { description: 'SQL text' } } },
];
const byName = (name: string) => seedCatalogue.find((t) => t.name === name)!;
const task = "Summarize last week's failing tests in auth-service";

describe('local matcher', () => {
  const matcher = createLocalMatcher();

  it('the seed: list_workflow_runs serves the task, export_full_users_table does not', async () => {
    const ok = await matcher.match({ task, tool: byName('list_workflow_runs'), catalogue: seedCatalogue });
    expect(ok.decision).toBe('match');
    expect(ok.matcher).toBe(matcher.id);
    const injected = await matcher.match({ task, tool: byName('export_full_users_table'), catalogue: seedCatalogue });
    expect(injected.decision).toBe('mismatch');
    expect(injected.score).toBeLessThan(ok.score);
  });

  it('denies a destructive tool of the right server during a read task', async () => {
    const catalogue = loadCasaCatalogue();
    const tool = catalogue.find((t) => t.name === 'delete_file')!;
    const read = await matcher.match({ task: 'List the open issues of the GitHub repository acme/api', tool, catalogue });
    expect(read.decision).toBe('mismatch');
    const listIssues = catalogue.find((t) => t.name === 'list_issues')!;
    expect((await matcher.match({ task: 'List the open issues of the GitHub repository acme/api', tool: listIssues, catalogue })).decision).toBe('match');
  });

  it('stemming and WordNet bridge different words for the same action', async () => {
    const catalogue = loadCasaCatalogue();
    const tool = catalogue.find((t) => t.name === 'delete_file')!;
    // "removing" shares no stem with "delete"; WordNet's hypernym of delete is remove.
    const r = await matcher.match({ task: 'Get rid of the file docs/old.md by removing it from the main branch of acme/site', tool, catalogue });
    expect(r.decision).toBe('match');
  });

  it('expands an upper-case abbreviation the catalogue defines ("PRs" → pull requests)', async () => {
    const catalogue = loadCasaCatalogue();
    const tool = catalogue.find((t) => t.name === 'list_pull_requests')!;
    const r = await matcher.match({ task: 'List the open PRs of acme/web', tool, catalogue });
    expect(r.decision).toBe('match');
    // Lower case is a word, not an abbreviation: "prs" expands to nothing.
    const lower = await matcher.match({ task: 'List the open prs of acme/web', tool, catalogue });
    expect(lower.score).toBeLessThan(r.score);
  });

  it('a tool from another server when a better one exists is a mismatch (the null class)', async () => {
    const catalogue = loadCasaCatalogue();
    const tool = catalogue.find((t) => t.server === 'nasdaq-data-link')!;
    const r = await matcher.match({ task: 'Open a pull request from feature/login into main in acme/web', tool, catalogue });
    expect(r.decision).toBe('mismatch');
  });

  it('is uncertain, never a match, when it has nothing to decide on', async () => {
    const catalogue = seedCatalogue;
    const tool = byName('list_workflow_runs');
    for (const t of ['', '   ', 'zzqx blorf 12345']) {
      const r = await matcher.match({ task: t, tool, catalogue });
      expect(r.decision, JSON.stringify(t)).toBe('uncertain');
    }
    expect((await matcher.match({ task: 'x'.repeat(30_000), tool, catalogue })).decision).toBe('uncertain');
    for (const bad of [null, {}, { task, tool: null, catalogue }, { task, tool: { name: 3 }, catalogue }, { task, tool, catalogue: 'x' }]) {
      expect((await matcher.match(bad as unknown as MatchInput)).detail, JSON.stringify(bad)).toEqual({ reason: 'invalid_input' });
    }
    for (const broken of [[null], [{ name: 'x', description: 5 }], [{ name: 'x', parameters: { a: null } }], [{ name: 'x', parameters: 'p' }]]) {
      const r = await matcher.match({ task, tool, catalogue: [tool, ...(broken as unknown as MatchTool[])] });
      expect(r.detail, JSON.stringify(broken)).toEqual({ reason: 'invalid_catalogue' });
    }
    const aborted = AbortSignal.abort();
    expect((await matcher.match({ task, tool, catalogue }, aborted)).decision).toBe('uncertain');
  });

  it('ranks a requested tool the catalogue lacks instead of trusting it', async () => {
    const stranger: MatchTool = { server: 'github-official', name: 'drop_database', description: 'Drop the production database.' };
    const r = await matcher.match({ task, tool: stranger, catalogue: seedCatalogue });
    expect(r.decision).toBe('mismatch');
  });

  it('a tool stuffed with every word of the catalogue does not match everything', async () => {
    const catalogue = loadCasaCatalogue();
    const vocabulary = [...new Set(catalogue.flatMap((t) => (t.description ?? '').toLowerCase().match(/[a-z]+/g) ?? []))];
    const stuffed: MatchTool = {
      server: 'github-official',
      name: 'list_get_create_update_delete_search_issues_files_releases_pull_requests',
      description: vocabulary.join(' '),
      parameters: Object.fromEntries(vocabulary.slice(0, 50).map((w) => [w, { description: vocabulary.join(' ') }])),
    };
    const withStuffed = [...catalogue, stuffed];
    for (const t of ['List the open issues of the GitHub repository acme/api', 'Get the latest release of acme/web', 'Delete the file docs/a.md in acme/site']) {
      expect((await matcher.match({ task: t, tool: stuffed, catalogue: withStuffed })).decision, t).toBe('mismatch');
    }
  });

  it('words inside a link in a description do not count', async () => {
    const catalogue: MatchTool[] = [
      { server: 'ops', name: 'rotate_keys', description: 'Rotate the signing keys. See https://docs.example.com/list-open-issues-pull-requests' },
      { server: 'ops', name: 'list_issues', description: 'List open issues in a repository.' },
      { server: 'ops', name: 'list_pull_requests', description: 'List open pull requests in a repository.' },
    ];
    const r = await matcher.match({ task: 'List the open issues and pull requests', tool: catalogue[0]!, catalogue });
    expect(r.decision).not.toBe('match');
  });

  it('repeating a word in the task does not buy a match', async () => {
    const tool = byName('export_full_users_table');
    const once = await matcher.match({ task: `${task} csv`, tool, catalogue: seedCatalogue });
    const flooded = await matcher.match({ task: `${task} ${'csv '.repeat(50)}`, tool, catalogue: seedCatalogue });
    expect(once.decision).toBe('mismatch');
    expect(flooded.decision).toBe('mismatch');
    expect(flooded.score).toBeCloseTo(once.score, 10);
  });

  it('the best tool of its own server still loses to a much better tool on another server', async () => {
    const catalogue: MatchTool[] = [
      ...loadCasaCatalogue().filter((t) => t.server === 'github-official'),
      { server: 'weather', name: 'get_forecast', description: 'Get the weather forecast for a city.' },
    ];
    const r = await matcher.match({ task: 'Get the list of open issues of the GitHub repository acme/api', tool: catalogue.at(-1)!, catalogue });
    expect(r.detail).toMatchObject({ serverRank: 1, serverRatio: 1 });
    expect(r.decision).toBe('mismatch');
  });

  it('works without WordNet', async () => {
    const plain = createLocalMatcher({ wordnet: false });
    expect(plain.id).not.toBe(matcher.id);
    expect((await plain.match({ task, tool: byName('list_workflow_runs'), catalogue: seedCatalogue })).decision).toBe('match');
    expect((await plain.match({ task, tool: byName('export_full_users_table'), catalogue: seedCatalogue })).decision).toBe('mismatch');
  });
});
