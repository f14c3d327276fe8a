import { fileURLToPath } from 'node:url';
import { describeBuiltIntegration } from '@countersign/core/testing/package-exports';

describeBuiltIntegration({
  name: 'claude-agent-sdk',
  packageDir: fileURLToPath(new URL('..', import.meta.url)),
  repoDir: fileURLToPath(new URL('../../../..', import.meta.url)),
  peers: ['@anthropic-ai/claude-agent-sdk'],
  functions: ['countersignClaudeAgent', 'countersignHooks', 'runtimeToolDefinitions'],
  // countersignClaudeAgent runs the recording proxy, which extracts tasks with semantic.
  workspaceDeps: ['semantic', 'proxy'],
});
