/**
 * Counting driver (not part of `npm run bench`): what each step of a flow does on the server,
 * counted rather than timed, so the figures do not depend on the machine's load. Runs the HTTP
 * bench's server child (SQLite store) in this process, wraps node:sqlite's statement calls,
 * JSON.parse/stringify and node:crypto's hashes (createHash, createHmac, hash), drives one
 * client through `calls` calls after a warm-up and prints, per step (POST path), the average
 * per call: SQL statements by kind (BEGIN and COMMIT included), JSON calls and characters,
 * hashes. The client's own JSON.stringify of the body and JSON.parse of the answer are taken
 * off the call counts (not off the character counts). With STACKS=1, where each
 * JSON.stringify and hash was called from.
 *   node --conditions=countersign-source bench/probes/count-work.ts <pd|pac> [calls]
 */
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { DatabaseSync, StatementSync } from 'node:sqlite';

const [flowName = 'pd', callsText = '50'] = process.argv.slice(2);
const calls = Number(callsText);
const counts = new Map<string, number>();
let counting = false;
const bump = (key: string, by = 1) => {
  if (counting) counts.set(key, (counts.get(key) ?? 0) + by);
};
/** The caller two frames up, shortened to the repository path. */
const bumpCaller = (what: string) => {
  if (!counting || process.env.STACKS === undefined) return;
  const frames = new Error().stack!.split('\n').slice(3, 5);
  bump(`  ${what} at ${frames.map((l) => l.trim().replace(/^at /, '').replace(/\(.*\/(packages|bench|node_modules)\//, '(')).join(' < ')}`);
};

/** "INSERT INTO audit_records", "UPDATE proposals SET", "SELECT", "BEGIN IMMEDIATE"… */
function kindOf(sql: string): string {
  const words = sql.trim().split(/\s+/);
  const n = words[0] === 'INSERT' || words[0] === 'UPDATE' ? 3 : 1;
  return words.slice(0, n).join(' ').replace(/\(.*/, '');
}
for (const method of ['run', 'get', 'all', 'iterate'] as const) {
  const original = StatementSync.prototype[method] as (...args: unknown[]) => unknown;
  (StatementSync.prototype as unknown as Record<string, unknown>)[method] = function (this: StatementSync, ...args: unknown[]) {
    bump(`sql ${kindOf(this.sourceSQL)}`);
    bump('sql (all statements)');
    return original.apply(this, args);
  };
}
const exec = DatabaseSync.prototype.exec;
DatabaseSync.prototype.exec = function (this: DatabaseSync, sql: string) {
  bump(`sql ${sql}`);
  bump('sql (all statements)');
  return exec.call(this, sql);
};
const parse = JSON.parse;
JSON.parse = (text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
  bump('JSON.parse calls');
  bump('JSON.parse characters', text.length);
  return parse(text, reviver);
};
const stringify = JSON.stringify;
JSON.stringify = ((value: unknown, replacer?: never, space?: never) => {
  const text = stringify(value, replacer, space);
  bumpCaller('JSON.stringify');
  bump('JSON.stringify calls');
  bump('JSON.stringify characters', text?.length ?? 0);
  return text;
}) as typeof JSON.stringify;
const { createHash, createHmac, hash } = crypto;
(crypto as { createHash: unknown }).createHash = (...args: Parameters<typeof createHash>) => {
  bump(`createHash ${args[0]}`);
  bumpCaller('createHash');
  return createHash(...args);
};
(crypto as { createHmac: unknown }).createHmac = (...args: Parameters<typeof createHmac>) => {
  bump(`createHmac ${args[0]}`);
  bumpCaller('createHmac');
  return createHmac(...args);
};
(crypto as { hash: unknown }).hash = (...args: Parameters<typeof hash>) => {
  bump(`hash ${args[0]}`);
  bumpCaller('hash');
  return hash(...args);
};
// Named imports of node:crypto (`import { hash } from 'node:crypto'`) see the wrappers too.
syncBuiltinESMExports();

const flows = await import('../http-flows.ts');
// The child's main() runs in this process and reports its ports through process.send: caught here.
const ready = new Promise<{ countersign: number }>((resolve) => {
  (process as { send?: unknown }).send = (message: { ports?: { countersign: number } }) => {
    if (message.ports !== undefined) resolve(message.ports);
    return true;
  };
});
process.argv[2] = 'sqlite';
await import('../http-server-child.ts');
const client = new flows.JsonClient((await ready).countersign, 1);
const perStep = new Map<string, Map<string, number>>();
const post = client.post.bind(client);
client.post = async (path: string, body: unknown, token?: string) => {
  counts.clear();
  counting = true;
  const answer = await post(path, body, token);
  // Work the server does after answering (a listener, a queued write) belongs to this step too.
  await new Promise((resolve) => setTimeout(resolve, 5));
  counting = false;
  const step = perStep.get(path) ?? new Map<string, number>();
  for (const [key, value] of counts) step.set(key, (step.get(key) ?? 0) + value);
  perStep.set(path, step);
  return answer;
};
const flow = flowName === 'pd' ? flows.proposeDispatch : flows.proposeAuthorizeComplete;
for (let i = 0; i < 5; i++) await flow(client, `w-${i}`, 'run-warm');
perStep.clear();
for (let i = 0; i < calls; i++) await flow(client, `c-${i}`, `run-${i % 4}`);
for (const [path, step] of perStep) {
  console.log(path);
  for (const [key, value] of [...step].sort()) {
    const clientShare = key === 'JSON.parse calls' || key === 'JSON.stringify calls' ? 1 : 0;
    console.log(`  ${key}: ${(value / calls - clientShare).toFixed(2)}`);
  }
}
process.exit(0);
