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
await import(fromSource ? '../src/main.ts' : '../dist/main.js');
