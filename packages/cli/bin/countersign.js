#!/usr/bin/env node
// The `countersign` command. Plain JavaScript on purpose, with nothing imported
// statically: it must run on any Node to say which Node it needs, before the CLI (built
// JavaScript, or its TypeScript sources in a checkout) is loaded. On an older Node the
// sources would fail with ERR_UNKNOWN_FILE_EXTENSION and the built files with a syntax
// or missing-API error, neither of which says what to do.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`Countersign needs Node >= 22.18 (found ${process.versions.node}). Install a current Node (24 LTS recommended) and run it again.\n`);
  process.exit(2);
}
// In this repository (`npm run countersign`, started with --conditions=countersign-source)
// the TypeScript sources run directly; an installed package runs its built files.
const fromSource = process.execArgv.some((arg) => arg.includes('countersign-source')) || (process.env.NODE_OPTIONS ?? '').includes('countersign-source');
// Node keeps the compiled code of the modules it loads in a cache folder and reuses it on the
// next run: most of a short command's time is loading modules (commander, zod, the CLI's own),
// not running them. The folder is the user's own (XDG cache), never the shared temporary folder
// Node picks by default, where another user could plant compiled code. A folder that cannot be
// made only means no cache (Node reports it and loads as usual).
if (!fromSource) {
  const cacheHome = process.env.XDG_CACHE_HOME || `${process.getBuiltinModule('node:os').homedir()}/.cache`;
  process.getBuiltinModule('node:module').enableCompileCache?.(`${cacheHome}/countersign/compile-cache`);
}
await import(fromSource ? '../src/main.ts' : '../dist/main.js');
