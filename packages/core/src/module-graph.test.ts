import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * Every module a fresh Node process resolves while importing `specifier` from the
 * package's sources: each specifier and the URL it resolved to. A resolve hook sees
 * built-ins (`node:fs`)
 * show up too: `process.moduleLoadList` cannot tell, because Node's own loader has
 * already loaded `fs` before any user code runs.
 */
function modulesLoadedBy(specifier: string): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({
      resolve(spec, context, next) {
        const result = next(spec, context);
        seen.add(spec);
        seen.add(result.url);
        return result;
      },
    });
    await import(${JSON.stringify(specifier)});
    process.stdout.write(JSON.stringify([...seen]));
  `;
  const out = execFileSync(process.execPath, ['--conditions=countersign-source', '--input-type=module', '-e', script], {
    cwd: packageDir,
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

const HEAVY = ['yaml', 'ajv', 'zod', 'node:fs', 'node:fs/promises'];

describe('module graph', () => {
  // An executor that only checks tokens (a tool host, an edge verifier) must not pay for,
  // or widen its attack surface with, the policy engine, its YAML and schema parsers, or
  // file-system access.
  it('importing the token verifier loads no policy engine, YAML, schema validator or node:fs', () => {
    const loaded = modulesLoadedBy('@countersign/core/token');
    expect(loaded.some((m) => m.includes('/token/verify.ts'))).toBe(true);
    for (const heavy of HEAVY) expect(loaded, heavy).not.toContain(heavy);
    expect(loaded.filter((m) => m.includes('/policy/') || m.includes('/node_modules/'))).toEqual([]);
  });

  it('the canonical module is as light', () => {
    const loaded = modulesLoadedBy('@countersign/core/canonical');
    for (const heavy of HEAVY) expect(loaded, heavy).not.toContain(heavy);
  });

  // Every framework integration imports the kit: it must not drag the gate's engine into an app's tool host.
  it('the integration kit is as light', () => {
    const loaded = modulesLoadedBy('@countersign/core/integration');
    expect(loaded.some((m) => m.includes('/integration/relay.ts'))).toBe(true);
    for (const heavy of HEAVY) expect(loaded, heavy).not.toContain(heavy);
    // Matched under src/ (a checkout path may itself contain "/gate/"). The one library it may
    // load is the RFC 8785 canonicalizer: the kit checks a resent call's argument digest.
    const outside = loaded.filter((m) => m.includes('/node_modules/') && !m.includes('/node_modules/canonicalize/'));
    expect(loaded.filter((m) => m.includes('/src/policy/') || m.includes('/src/gate/')).concat(outside)).toEqual([]);
  });

  it('the check sees what the root export loads (so it can fail)', () => {
    const loaded = modulesLoadedBy('@countersign/core');
    expect(loaded).toContain('yaml');
    expect(loaded.filter((m) => m.startsWith('node:fs'))).not.toEqual([]);
  });
});
