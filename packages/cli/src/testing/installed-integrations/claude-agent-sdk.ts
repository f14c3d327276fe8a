// @countersign/claude-agent-sdk installed alone with the Claude Agent SDK: the hooks an agent's
// query options take, on an in-process gate. Running an agent needs the Claude runtime and a model.
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { countersignHooks, runtimeToolDefinitions } from '@countersign/claude-agent-sdk';
import { createGate, hmacKey, Keyring, loadPolicy, memoryStore } from '@countersign/core';
import { InProcessGatePort } from '@countersign/core/gate';
import { frameworkToolRegistry } from '@countersign/core/integration';

const gate = createGate({
  store: memoryStore(),
  policy: loadPolicy('version: 1\nrules:\n  - tool: Write\n    verdict: approve\n    approval: { approvers: { roles: [ops] } }\n', 'yaml'),
  keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),
  tools: frameworkToolRegistry(runtimeToolDefinitions(['Bash', 'Write'], 'example'), 'the Claude Agent SDK runtime'),
});
const options: Options = { settingSources: [], ...countersignHooks({ port: new InProcessGatePort(gate), principal: 'user:42' }) };
console.log(`claude-agent-sdk: hooks for ${Object.keys(options.hooks ?? {}).sort().join(', ')}`);
