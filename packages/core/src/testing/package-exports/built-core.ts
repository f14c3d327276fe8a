import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { builtPackageCache } from './built-package.ts';

// Every package-exports test and the install test need `@countersign/core` built with plain
// tsc: it is built once per run into a cache folder named by its sources (built-package.ts).

/** The folder holding core's `dist/` built from today's sources, building it if no file of this run has. */
export async function builtCoreDist(repoDir: string): Promise<string> {
  return join(await builtPackageCache(repoDir, '@countersign/core'), 'dist');
}

/** Copies the cached core build into `installed/dist`. */
export async function copyBuiltCore(repoDir: string, installed: string): Promise<void> {
  cpSync(await builtCoreDist(repoDir), join(installed, 'dist'), { recursive: true });
}
