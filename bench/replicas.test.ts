import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { CLI } from './replicas.ts';

// The replicas row starts `countersign serve` from the sources by path: a moved CLI must
// fail here, not only when someone next runs `npm run bench -- replicas`.
it('the replicas bench starts the CLI the root `npm run countersign` script starts', async () => {
  expect(existsSync(CLI)).toBe(true);
  const { readFile } = await import('node:fs/promises');
  const scripts = (JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
  expect(scripts.countersign).toContain('packages/cli/bin/countersign.js');
});
