// Child process for the two-process authorize/complete test: opens the shared file with
// its own connection and gate, does one step as agent `a`, prints the outcome as JSON.
// Run with --conditions=countersign-source.
import { KIT_AGENTS } from '@countersign/core/testing';
import { waitForGo } from '@countersign/core/testing/children';
import { openSqliteStore } from '../open.ts';
import { kitGate } from './kit-gate.ts';

const [mode, path, input = '{}', completion = '{}'] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: gate-child.ts authorize|complete <path> <request|grant> [completion]');
const store = openSqliteStore({ path, busyTimeoutMs: 30_000 });
const port = kitGate(store).port(KIT_AGENTS.a);
await waitForGo();
if (mode === 'authorize') {
  process.stdout.write(`${JSON.stringify(await port.authorize(JSON.parse(input)))}\n`);
} else if (mode === 'complete') {
  process.stdout.write(`${JSON.stringify(await port.complete(JSON.parse(input), JSON.parse(completion)))}\n`);
} else {
  throw new Error(`unknown mode ${mode}`);
}
await store.close();
