import { fileURLToPath } from 'node:url';
import { describeBuiltIntegration } from '@countersign/core/testing/package-exports';

describeBuiltIntegration({
  name: 'dbos',
  packageDir: fileURLToPath(new URL('..', import.meta.url)),
  repoDir: fileURLToPath(new URL('../../../..', import.meta.url)),
  peers: ['@dbos-inc/dbos-sdk'],
  functions: ['countersignWorkflow', 'notifyWorkflows', 'decisionTopic'],
});
