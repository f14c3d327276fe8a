import { fileURLToPath } from 'node:url';
import { describeBuiltIntegration } from '@countersign/core/testing/package-exports';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

describeBuiltIntegration({
  name: 'ai-sdk',
  packageDir,
  repoDir: fileURLToPath(new URL('../../../..', import.meta.url)),
  peers: ['ai'],
  functions: ['countersign', 'guardTools', 'recordUserDecision'],
});
