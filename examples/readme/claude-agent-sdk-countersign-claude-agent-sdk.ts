import { query } from '@anthropic-ai/claude-agent-sdk';
import { countersignHooks, runtimeToolDefinitions } from '@countersign/claude-agent-sdk';
import { createGate, keyringFromEnv, loadPolicyFile, memoryStore } from '@countersign/core';
import { InProcessGatePort } from '@countersign/core/gate';
import { frameworkToolRegistry } from '@countersign/core/integration';

const sdkVersion = '0.3';   // the runtime you run: an upgrade changes its tools' pinned digests
const gate = createGate({
  store: memoryStore(),                          // openSqliteStore / openPostgresStore in a real service
  policy: await loadPolicyFile('policy.yaml'),
  keyring: keyringFromEnv(),
  // the gate lists the runtime's tools your policy names
  tools: frameworkToolRegistry(runtimeToolDefinitions(['Bash', 'Write', 'Agent'], sdkVersion), 'the Claude Agent SDK runtime'),
});
const port = new InProcessGatePort(gate);        // or createClient(...) for a shared service

/** One turn of the agent for a user; pass the session id it returns to resume after an approval. */
export async function runAgent(prompt: string, userId: string, savedSessionId?: string): Promise<string | undefined> {
  let sessionId = savedSessionId;
  for await (const message of query({
    prompt,
    options: { ...countersignHooks({ port, principal: `user:${userId}` }), ...(savedSessionId === undefined ? {} : { resume: savedSessionId }) },
  })) {
    if ('session_id' in message && typeof message.session_id === 'string') sessionId = message.session_id;
  }
  return sessionId;
}
