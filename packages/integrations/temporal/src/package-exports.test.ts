import { fileURLToPath } from 'node:url';
import { describeBuiltIntegration } from '@countersign/core/testing/package-exports';

describeBuiltIntegration({
  name: 'temporal',
  packageDir: fileURLToPath(new URL('..', import.meta.url)),
  repoDir: fileURLToPath(new URL('../../../..', import.meta.url)),
  peers: ['@temporalio/activity', '@temporalio/client', '@temporalio/common', '@temporalio/worker', '@temporalio/workflow'],
  functions: ['createCountersignActivities', 'countersignActivityInterceptors'],
  subpathFunctions: { workflow: ['countersignWorkflow'] },
});
