import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleForTest } from '../../packages/integrations/temporal/src/testing/bundle.ts';

describe('the Temporal example', () => {
  it('without TEMPORAL_ADDRESS, says what it needs and exits 0', () => {
    const env = { ...process.env };
    delete env.TEMPORAL_ADDRESS;
    const out = execFileSync(process.execPath, ['--conditions=countersign-source', fileURLToPath(new URL('./temporal.ts', import.meta.url))], { env, encoding: 'utf8' });
    expect(out).toContain('needs a Temporal server');
    expect(out).toContain('Nothing was run.');
  }, 60_000);

  it("the example's workflow bundles for the sandbox (bundleWorkflowCode, no server)", async () => {
    const bundle = await bundleForTest(fileURLToPath(new URL('./workflows.ts', import.meta.url)));
    expect(bundle.code).toContain('paymentWorkflow');
  }, 120_000);
});
