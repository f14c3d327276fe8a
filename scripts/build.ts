// `npm run build [-- NAME ...] [--force] [--jobs N]`: builds the named workspace packages
// (`@countersign/cli`, `cli` or `packages/cli`) and every workspace package they depend on,
// in dependency order, independent ones in parallel; with no name, all of them. Runs on plain
// Node >= 22.18 (type stripping), before anything is built.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildPackages } from './build/build-packages.ts';
import { readWorkspace, selectWithNeeds } from './build/workspace-graph.ts';

const repo = join(import.meta.dirname, '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { force: { type: 'boolean', default: false }, jobs: { type: 'string' } },
});
const started = performance.now();
try {
  const packages = selectWithNeeds(readWorkspace(repo), positionals);
  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && !(Number.isInteger(jobs) && jobs > 0)) throw new Error('--jobs takes a positive whole number');
  const { built, upToDate } = await buildPackages(repo, packages, { force: values.force, log: (line) => console.log(line), ...(jobs === undefined ? {} : { jobs }) });
  if (upToDate.length > 0) console.log(`up to date: ${upToDate.join(', ')}`);
  console.log(`built ${built.length} of ${packages.length} packages in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
