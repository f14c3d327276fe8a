import { join } from 'node:path';

/**
 * Where the test suites' child processes keep Node's compile cache: in this checkout's
 * node_modules (never the shared temporary folder, where another user could plant compiled
 * code). The path is the same from src/ and dist/ (both four folders below packages/core).
 */
const TEST_COMPILE_CACHE = join(import.meta.dirname, '..', '..', '..', '..', '..', 'node_modules', '.cache', 'countersign-tests', 'compile-cache');

/**
 * `env` plus NODE_COMPILE_CACHE: a Node child started from the TypeScript sources spends
 * most of its start-up stripping types and compiling modules, and every test that spawns
 * the CLI, a store child or a worker loads the same ones. Node keys each entry by the
 * source's content, so an edited file is compiled again, never served stale.
 */
export function withCompileCache<T extends Record<string, string | undefined>>(env: T): T & { NODE_COMPILE_CACHE: string } {
  return { ...env, NODE_COMPILE_CACHE: TEST_COMPILE_CACHE };
}
