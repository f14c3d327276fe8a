import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { PROCESS_AND_BROWSER_TESTS, STORE_ISOLATED_TESTS, STORE_TESTS } from './vitest.groups.ts';
import { SlowFirstSequencer } from './vitest.sequencer.ts';

const packagesDir = fileURLToPath(new URL('./packages/', import.meta.url));

const ALL_TESTS = ['packages/*/src/**/*.test.ts', 'packages/integrations/*/src/**/*.test.ts', 'examples/**/*.test.ts', 'bench/**/*.test.ts', 'scripts/**/*.test.ts'];

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of sibling packages, not their dist/.
    alias: [
      // Integrations live one level deeper, under packages/integrations/.
      { find: /^@countersign\/ai-sdk$/, replacement: `${packagesDir}integrations/ai-sdk/src/index.ts` },
      { find: /^@countersign\/langchain$/, replacement: `${packagesDir}integrations/langchain/src/index.ts` },
      { find: /^@countersign\/dbos$/, replacement: `${packagesDir}integrations/dbos/src/index.ts` },
      { find: /^@countersign\/temporal$/, replacement: `${packagesDir}integrations/temporal/src/index.ts` },
      { find: /^@countersign\/temporal\/workflow$/, replacement: `${packagesDir}integrations/temporal/src/workflow/index.ts` },
      { find: /^@countersign\/claude-agent-sdk$/, replacement: `${packagesDir}integrations/claude-agent-sdk/src/index.ts` },
      { find: /^@countersign\/openai-agents$/, replacement: `${packagesDir}integrations/openai-agents/src/index.ts` },
      { find: /^@countersign\/([^/]+)$/, replacement: `${packagesDir}$1/src/index.ts` },
      { find: /^@countersign\/([^/]+)\/(.+)$/, replacement: `${packagesDir}$1/src/$2/index.ts` },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two workers more than the cores. Vitest's default, one fewer, leaves a single worker on
    // a 2-core CI machine, and even one per core idles a core whenever its test waits for
    // Postgres, a child process, Chromium or a timer; the extra workers run other files
    // meanwhile (measured in bench/NOTES.md, "CI: workers"). VITEST_MAX_WORKERS overrides it.
    maxWorkers: availableParallelism() + 2,
    // The slowest files of each project first (SLOW_FILES in vitest.groups.ts).
    sequence: { sequencer: SlowFirstSequencer },
    // Four groups (see vitest.groups.ts); `npm test` runs all of them, `--project <name>` one.
    // They share one worker pool (same default sequence.groupOrder): vitest queues the files by
    // project name, so the slow process-and-browser files start first, the store files follow
    // and the short unit files fill the tail, with no barrier between projects. A distinct
    // groupOrder would make each project wait for the previous one to finish.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ALL_TESTS,
          exclude: [...configDefaults.exclude, ...STORE_TESTS, ...STORE_ISOLATED_TESTS, ...PROCESS_AND_BROWSER_TESTS],
          // Pure tests share one module graph per worker: with isolation most of their time
          // was re-importing the same sources for every file. Forks (the default pool), not
          // threads: threads cost the same CPU here and would share process state across files.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'store',
          include: STORE_TESTS,
          exclude: [...configDefaults.exclude, ...PROCESS_AND_BROWSER_TESTS],
          // As in unit: re-importing the stores and core for every file was much of these
          // files' cost. What a file opens, it closes (vitest.groups.ts), so nothing piles up
          // in a worker that outlives the file.
          isolate: false,
        },
      },
      {
        extends: true,
        // Each file keeps its own module graph: DBOS and Temporal hold process-wide state.
        test: { name: 'store-isolated', include: STORE_ISOLATED_TESTS, exclude: [...configDefaults.exclude, ...PROCESS_AND_BROWSER_TESTS] },
      },
      {
        extends: true,
        test: {
          name: 'process-and-browser',
          include: PROCESS_AND_BROWSER_TESTS,
          // As in unit and store: these files spawn processes and browsers, but none keeps
          // process-wide state (the durable engines' examples are in store-isolated), and
          // re-importing the CLI, server and stores for every file was a third of their
          // processor time (bench/NOTES.md, "CI: one module graph for process tests").
          isolate: false,
        },
      },
    ],
  },
});
