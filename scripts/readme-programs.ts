// `npm run readme-programs`: writes the README's complete programs (every ```ts block not marked
// `<!-- fragment -->`) to examples/readme/, one file each, and removes the files of programs the
// README no longer has. `npm test`'s typecheck checks them with every other source;
// examples/readme-code.test.ts fails while a file differs from its README block.
// Runs on plain Node >= 22.18 (type stripping).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmePrograms } from '../packages/cli/src/testing/readme-blocks.ts';

const dir = join(import.meta.dirname, '..', 'examples', 'readme');
const programs = readmePrograms();
mkdirSync(dir, { recursive: true });
for (const { file, block } of programs) writeFileSync(join(dir, file), block.code);
const kept = new Set(programs.map(({ file }) => file));
for (const file of readdirSync(dir)) if (file.endsWith('.ts') && !kept.has(file)) rmSync(join(dir, file));
console.log(`examples/readme/: ${programs.map(({ file, block }) => `${file} (README line ${block.line})`).join(', ')}`);
