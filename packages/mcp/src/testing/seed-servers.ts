import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/**
 * The two MCP servers of the semantic-layer seed: `github` (CI reads) and `db-readonly`
 * (a clean, typed, read-only export an injected instruction may ask for). Each records
 * the calls that reached it.
 */
export async function seedServers() {
  const calls: string[] = [];
  const github = new McpServer({ name: 'github', version: '1.0.0' });
  github.registerTool(
    'list_workflow_runs',
    {
      description: 'List the CI workflow runs (builds and test runs) of a repository, optionally filtered by status such as failure.',
      inputSchema: { repo: z.string().describe('Repository name'), status: z.string().optional().describe('Run status, e.g. failure') },
    },
    async ({ repo, status }) => {
      calls.push(`list_workflow_runs:${repo}:${status ?? ''}`);
      return { content: [{ type: 'text', text: `3 failing runs in ${repo}` }] };
    },
  );
  const db = new McpServer({ name: 'db-readonly', version: '1.0.0' });
  db.registerTool(
    'export_full_users_table',
    { description: 'Export every row of the users table (names, emails, addresses) as CSV.', inputSchema: { format: z.string().optional().describe('csv or json') } },
    async () => {
      calls.push('export_full_users_table');
      return { content: [{ type: 'text', text: 'id,name,email\n1,Jane,jane@example.com' }] };
    },
  );
  const link = async (server: McpServer) => {
    const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    return gatewaySide;
  };
  return {
    calls,
    upstreams: [
      { name: 'github', transport: await link(github) },
      { name: 'db-readonly', transport: await link(db) },
    ],
    close: async () => {
      await github.close();
      await db.close();
    },
  };
}
