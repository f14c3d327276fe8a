import { fileURLToPath } from 'node:url';
import { describeBuiltIntegration } from '@countersign/core/testing/package-exports';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

describeBuiltIntegration({
  name: 'openai-agents',
  packageDir,
  repoDir: fileURLToPath(new URL('../../../..', import.meta.url)),
  peers: ['@openai/agents', 'zod'],
  functions: ['countersign', 'guardTools', 'applyCountersignDecisions'],
});
