import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const packagesDir = fileURLToPath(new URL('./packages/', import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of sibling packages, not their dist/.
    alias: [
      // Integrations live one level deeper, under packages/integrations/.
      { find: /^@countersign\/ai-sdk$/, replacement: `${packagesDir}integrations/ai-sdk/src/index.ts` },
      { find: /^@countersign\/langchain$/, replacement: `${packagesDir}integrations/langchain/src/index.ts` },
      { find: /^@countersign\/dbos$/, replacement: `${packagesDir}integrations/dbos/src/index.ts` },
      { find: /^@countersign\/temporal$/, replacement: `${packagesDir}integrations/temporal/src/index.ts` },
      { find: /^@countersign\/temporal\/workflow$/, replacement: `${packagesDir}integrations/temporal/src/workflow/index.ts` },
      { find: /^@countersign\/claude-agent-sdk$/, replacement: `${packagesDir}integrations/claude-agent-sdk/src/index.ts` },
      { find: /^@countersign\/openai-agents$/, replacement: `${packagesDir}integrations/openai-agents/src/index.ts` },
      { find: /^@countersign\/([^/]+)$/, replacement: `${packagesDir}$1/src/index.ts` },
      { find: /^@countersign\/([^/]+)\/(.+)$/, replacement: `${packagesDir}$1/src/$2/index.ts` },
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/integrations/*/src/**/*.test.ts', 'examples/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
