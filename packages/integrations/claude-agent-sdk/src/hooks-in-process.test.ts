import { describeClaudeHooks } from './hooks.test-helper.ts';

describeClaudeHooks('in-process');
