import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleForTest } from './testing/bundle.ts';
import { workflowNow } from './workflow/workflow-time.ts';

const workflowDir = fileURLToPath(new URL('./workflow/', import.meta.url));
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** The webpack modules of a bundle: id (path) → source. */
function modulesOf(code: string): Map<string, string> {
  const parts = code.split(/^\/\*\*\*\/ "([^"]+)":?$/m);
  const modules = new Map<string, string>();
  for (let i = 1; i < parts.length; i += 2) modules.set(parts[i]!, parts[i + 1]!);
  return modules;
}

// What would make workflow code non-deterministic or unusable in the sandbox.
const FORBIDDEN = [/Math\.random/, /performance\.now/, /new Date\(/, /setTimeout|setInterval/, /\bcrypto\b/, /process\.(env|hrtime)/];

describe('the workflow bundle (bundleWorkflowCode, no server)', () => {
  it('builds, and holds only the workflow entry point of this package: no node:* module, nothing from @countersign/core', async () => {
    const bundle = await bundleForTest();
    const modules = modulesOf(bundle.code);
    expect(modules.size).toBeGreaterThan(20);
    const ids = [...modules.keys()];
    expect(ids.filter((id) => NODE_BUILTINS.has(id) || id.startsWith('node:'))).toEqual([]);
    expect(bundle.code).not.toMatch(/require\(["'](node:|crypto["'])/);
    const own = ids.filter((id) => id.startsWith('./packages/'));
    expect(own.sort()).toEqual([
      './packages/integrations/temporal/src/testing/approval-workflow.ts',
      './packages/integrations/temporal/src/workflow/contract.ts',
      './packages/integrations/temporal/src/workflow/countersign-workflow.ts',
      './packages/integrations/temporal/src/workflow/index.ts',
      './packages/integrations/temporal/src/workflow/signals.ts',
      './packages/integrations/temporal/src/workflow/workflow-time.ts',
    ]);
    // Determinism, as bundled: no randomness or wall clock in our modules; time only through workflowNow (Date.now is the sandbox's workflow clock).
    for (const id of own) {
      const source = modules.get(id)!.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      for (const pattern of FORBIDDEN) expect(source, `${id} ${pattern}`).not.toMatch(pattern);
      if (!id.endsWith('/workflow-time.ts')) expect(source, id).not.toMatch(/Date\.now/);
    }
  }, 120_000);

  it('the sandbox bundler refuses a workflow that mints tokens itself (core token module: node:crypto)', async () => {
    const leaky = fileURLToPath(new URL('./testing/leaky-workflow.ts', import.meta.url));
    const errors: string[] = [];
    await expect(bundleForTest(leaky, errors)).rejects.toThrow(/Webpack finished with errors/);
    expect(errors.join('\n')).toMatch(/node:crypto.*\[1 error\]/);
  }, 120_000);

  it('the workflow sources import only @temporalio/workflow, each other, and core types', () => {
    for (const file of readdirSync(workflowDir)) {
      const source = readFileSync(`${workflowDir}${file}`, 'utf8');
      for (const [, statement, from] of source.matchAll(/^(import(?: type)?)[^;]*? from '([^']+)'/gms)) {
        const allowed = from === '@temporalio/workflow' || from!.startsWith('./') || (statement === 'import type' && from!.startsWith('@countersign/core'));
        expect(allowed, `${file}: ${statement} from '${from}'`).toBe(true);
      }
    }
  });

  it('workflow time is refused outside a workflow, where Date.now would be the wall clock', () => {
    expect(() => workflowNow()).toThrow(/only deterministic inside a Temporal workflow/);
  });
});
