import { cpSync, existsSync, linkSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { InstallFolder } from './install-lockfile.ts';

// Extracting the same third-party packages into each of the install test's folders was most of
// its CPU. The repository's `npm ci` already extracted them, from the tarballs the folder's
// lockfile names (same place in the tree, same integrity), so they are hard-linked from there,
// their commands linked in node_modules/.bin, and recorded in node_modules/.package-lock.json,
// npm's own record of what a folder holds: `npm install` then finds them in place, extracts
// only what is missing (our tarballs), and still fetches, offline, whatever the lockfile left
// out. The files are the repository's: a program run in the folder must not write into node_modules.

/**
 * Hard-links into `dir` the third-party packages of its lockfile that the repository installed.
 * Returns false, linking nothing, where `dir` is on another filesystem than the repository.
 */
export function prelinkThirdPartyPackages(repo: string, dir: string, { lockfile }: InstallFolder): boolean {
  if (statSync(dir).dev !== statSync(repo).dev) return false;
  const linked: InstallFolder['lockfile']['packages'] = {};
  for (const [path, entry] of Object.entries(lockfile.packages)) {
    // Ours come from the tarballs; another platform's builds were never installed.
    if (path === '' || entry.resolved?.startsWith('file:') || !existsSync(join(repo, path))) continue;
    linkPackage(join(repo, path), join(dir, path));
    linkCommands(dir, path, entry.bin);
    linked[path] = entry;
  }
  // Written last: npm trusts this record only if it is newer than every package folder.
  writeFileSync(join(dir, 'node_modules', '.package-lock.json'), JSON.stringify({ ...lockfile, packages: linked }));
  return true;
}

/** Every file of the package, without its own node_modules (each package there is an entry of its own). */
function linkPackage(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) linkPackage(source, target);
    else if (entry.isSymbolicLink()) cpSync(source, target, { verbatimSymlinks: true });
    else linkSync(source, target);
  }
}

/**
 * The package's commands in the `.bin` folder of the node_modules that holds it, as npm links
 * them: npm extracts a package again, though its files are in place, when one of its commands
 * is missing there (arborist's diff, `binsExist`).
 */
function linkCommands(dir: string, path: string, bin: unknown): void {
  if (typeof bin !== 'object' || bin === null) return;
  const binDir = join(dir, path.slice(0, path.lastIndexOf('node_modules/')), 'node_modules', '.bin');
  mkdirSync(binDir, { recursive: true });
  for (const [name, file] of Object.entries(bin as Record<string, string>)) {
    const link = join(binDir, name);
    // Two packages may name the same command; npm checks only that the name is there.
    if (!existsSync(link)) symlinkSync(relative(binDir, join(dir, path, file)), link);
  }
}
