import { fileURLToPath } from 'node:url';
import { describeBuiltIntegration } from '@countersign/core/testing/package-exports';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

describeBuiltIntegration({
  name: 'langchain',
  packageDir,
  repoDir: fileURLToPath(new URL('../../../..', import.meta.url)),
  peers: ['@langchain/core', '@langchain/langgraph', 'langchain'],
  functions: ['countersignMiddleware', 'refusalOf', 'countersignInterrupts'],
});
