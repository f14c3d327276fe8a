// Loaded with `node --import`: records every module the process resolves and prints the
// list on stderr at exit, so a test can see what a command imported.
import { registerHooks } from 'node:module';

const seen = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    seen.add(resolved.url);
    return resolved;
  },
});
process.on('exit', () => process.stderr.write(`\nLOADED ${JSON.stringify([...seen])}\n`));
