// Process-racing helpers for multi-process tests. Kept apart from the conformance
// suites because child processes load this without the test runner.
export { runChildren, waitForGo } from './run-children.ts';
export { withCompileCache } from './compile-cache.ts';
export { runLifecycleWorker } from '../lifecycle-model/kill-worker.ts';
