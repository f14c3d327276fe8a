import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

export const APPROVAL_WORKFLOW_PATH = fileURLToPath(new URL('./approval-workflow.ts', import.meta.url));

/**
 * Bundles a workflow file the way a worker does (webpack, Temporal's sandbox rules),
 * resolving `@countersign/*` to its TypeScript sources (the `countersign-source` condition).
 */
export function bundleForTest(workflowsPath = APPROVAL_WORKFLOW_PATH, errors: string[] = []): Promise<WorkflowBundleWithSourceMap> {
  const quiet = () => {};
  return bundleWorkflowCode({
    workflowsPath,
    // The bundler reports webpack's errors (e.g. a disallowed node module) through the logger.
    logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: (message, meta) => errors.push(`${message} ${JSON.stringify(meta ?? {})}`) },
    webpackConfigHook: (config) => {
      const resolve = config.resolve ?? {};
      resolve.conditionNames = ['countersign-source', '...'];
      resolve.extensionAlias = { '.js': ['.ts', '.js'] };
      return { ...config, resolve };
    },
  });
}
