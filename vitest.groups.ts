// Which test files belong to which vitest project (vitest.config.ts). Everything not
// listed here is a `unit` test: pure, in-memory, safe to share a module graph with others.
// A new test that opens a database belongs in STORE_TESTS (and must close it), one that
// runs DBOS or Temporal in STORE_ISOLATED_TESTS; one that spawns a process, starts a
// browser or builds a package belongs in PROCESS_AND_BROWSER_TESTS.

/**
 * Tests against SQLite or PostgreSQL. They share a module graph per worker like the unit
 * tests, so each file closes in its hooks every database, pool and background writer it opens.
 */
export const STORE_TESTS = [
  'packages/store-sqlite/src/**/*.test.ts',
  'packages/store-postgres/src/**/*.test.ts',
  'bench/**/*.test.ts',
  'packages/integrations/langchain/src/honest.test.ts',
];

/**
 * Tests of the durable engines and their examples, each file in a module graph of its own:
 * DBOS and Temporal keep process-wide state (a launched runtime, registered workflows, an
 * installed native runtime) that a later file in the same graph would find already set.
 */
export const STORE_ISOLATED_TESTS = [
  'packages/integrations/dbos/src/**/*.test.ts',
  'packages/integrations/temporal/src/**/*.test.ts',
  'examples/dbos/**/*.test.ts',
  'examples/temporal/**/*.test.ts',
];

/** Tests that spawn processes (stdio MCP servers, the CLI, tsc), launch Chromium, or run examples. */
export const PROCESS_AND_BROWSER_TESTS = [
  // The examples that start `countersign serve` or the Claude runtime (DBOS's and Temporal's
  // are with the durable engines); the others run in memory with the unit tests.
  'examples/agent/**/*.test.ts',
  'examples/claude-agent-sdk/**/*.test.ts',
  'packages/**/src/**/package-exports.test.ts',
  'packages/core/src/module-graph.test.ts',
  // TypeScript 7's compiler API runs the native compiler as a child process.
  'packages/core/src/api-report.test.ts',
  'examples/readme-code.test.ts',
  'packages/server/src/ui/*browser*.test.ts',
  'packages/server/src/ui/responsive.test.ts',
  'packages/server/src/ui/live-list.test.ts',
  // The CLI opens stores (SQLite, Postgres) and spawns its own commands.
  'packages/cli/src/**/*.test.ts',
  // The Claude Agent SDK integration runs the real runtime as a child process.
  'packages/integrations/claude-agent-sdk/src/**/*.test.ts',
  'packages/mcp/src/conformance.test.ts',
  'packages/mcp/src/http-front.test.ts',
  'packages/mcp/src/reference-servers.test.ts',
  'packages/mcp/src/relay.test.ts',
  'packages/mcp/src/server-everything.test.ts',
  'packages/mcp/src/upstream-failure.test.ts',
  'packages/proxy/src/casa-e2e.test.ts',
  // npm test's runner, with small node processes standing in for tsc, biome and vitest.
  'scripts/test/run-steps.test.ts',
];

/**
 * Files that take longest, slowest first (from a full run's JSON report): each project
 * starts these before its other files, so no long file is left for the end of the run
 * (vitest.sequencer.ts). A file missing here only starts later; keep the list short.
 */
export const SLOW_FILES = [
  // process-and-browser
  'packages/integrations/claude-agent-sdk/src/adapter-kit.test.ts',
  'packages/integrations/claude-agent-sdk/src/hooks-in-process.test.ts',
  'packages/integrations/claude-agent-sdk/src/hooks-client.test.ts',
  'packages/cli/src/install.test.ts',
  'packages/core/src/package-exports.test.ts',
  'examples/temporal/temporal.test.ts',
  'examples/claude-agent-sdk/claude-agent-sdk.test.ts',
  'packages/cli/src/serve-log-level.test.ts',
  'examples/dbos/dbos.test.ts',
  'packages/cli/src/mcp.test.ts',
  // store-isolated
  'packages/integrations/dbos/src/crash-recovery.test.ts',
  'packages/integrations/dbos/src/attacks.test.ts',
  // store
  'packages/store-postgres/src/lifecycle-model.test.ts',
  'packages/store-sqlite/src/multi-process.test.ts',
  'packages/store-postgres/src/multi-process.test.ts',
  'packages/store-postgres/src/postgres-ledger.test.ts',
  'packages/store-sqlite/src/authorize-complete-processes.test.ts',
  'packages/store-postgres/src/durable-commits.test.ts',
  'packages/store-postgres/src/intent-stage.test.ts',
  // unit
  'packages/core/src/canonical/properties.test.ts',
  'packages/mcp/src/declared-capabilities.test.ts',
  'packages/core/src/gate/lifecycle-model.test.ts',
  'packages/core/src/audit/verify-chain.test.ts',
  'packages/core/src/audit/verify-chain.property.test.ts',
  'packages/core/src/canonical/flat-canonical.test.ts',
];
