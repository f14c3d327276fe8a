import { describeClaudeHooks } from './hooks.test-helper.ts';

describeClaudeHooks('client');
