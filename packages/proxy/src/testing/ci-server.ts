import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** What `list_workflow_runs` answers for last week's failures: the seed example's tool result. */
export const FAILING_RUNS = [
  { id: 4101, workflow: 'ci', branch: 'main', conclusion: 'failure', failed_tests: ['auth.test.ts > refresh token expiry'] },
  { id: 4117, workflow: 'ci', branch: 'main', conclusion: 'failure', failed_tests: ['ledger.test.ts > concurrent consume', 'auth.test.ts > refresh token expiry'] },
];

/** A CI server written for the tests: it lists workflow runs and can re-run one; it records every call it ran. */
export async function ciServer() {
  const server = new McpServer({ name: 'ci', version: '1.0.0' });
  const ran: Array<{ tool: string; args: unknown }> = [];
  server.registerTool(
    'list_workflow_runs',
    {
      description: 'List CI workflow runs, filtered by status and period.',
      inputSchema: { status: z.enum(['success', 'failure']), since: z.string() },
    },
    async (args) => {
      ran.push({ tool: 'list_workflow_runs', args });
      const runs = args.status === 'failure' ? FAILING_RUNS : [];
      return { content: [{ type: 'text', text: `${runs.length} failing runs since ${args.since}` }, { type: 'text', text: JSON.stringify(runs) }] };
    },
  );
  server.registerTool('rerun_workflow', { description: 'Re-run a CI workflow run.', inputSchema: { run_id: z.number() } }, async (args) => {
    ran.push({ tool: 'rerun_workflow', args });
    return { content: [{ type: 'text', text: `re-running ${args.run_id}` }] };
  });
  const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { ran, transport: gatewaySide, close: () => server.close() };
}
