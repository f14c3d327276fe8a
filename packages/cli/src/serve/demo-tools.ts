import type { Tool, ToolContext, ToolDefinition, ToolRegistry } from '@countersign/core/gate';

/** One execution of a demo tool, reported so the operator (and tests) can see what ran. */
export interface DemoExecution {
  tool: string;
  runId: string;
  callId: string;
  principal: string;
}

export const DEMO_TOOL_NAMES = ['transfer', 'read_file', 'get_balance', 'deploy', 'delete_repo'] as const;

const DEFINITIONS: Record<(typeof DEMO_TOOL_NAMES)[number], ToolDefinition> = {
  transfer: {
    name: 'transfer',
    description: 'Transfer money to a recipient (demo: nothing is moved).',
    inputSchema: {
      type: 'object',
      properties: { amount: { type: 'number' }, to: { type: 'string' }, memo: { type: 'string' } },
      required: ['amount', 'to'],
    },
  },
  read_file: {
    name: 'read_file',
    description: 'Read a file (demo: returns placeholder text, reads nothing).',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    annotations: { readOnlyHint: true },
  },
  get_balance: {
    name: 'get_balance',
    description: 'Get an account balance (demo: a fixed balance).',
    inputSchema: { type: 'object', properties: { account: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  },
  deploy: {
    name: 'deploy',
    description: 'Deploy a service version to an environment (demo: nothing is deployed).',
    inputSchema: {
      type: 'object',
      properties: { service: { type: 'string' }, version: { type: 'string' }, environment: { type: 'string' } },
      required: ['service', 'version'],
    },
  },
  delete_repo: {
    name: 'delete_repo',
    description: 'Delete a repository (demo: nothing is deleted).',
    inputSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
    annotations: { destructiveHint: true },
  },
};

type Echo = (args: Record<string, unknown>) => Record<string, unknown>;

const RESULTS: Record<(typeof DEMO_TOOL_NAMES)[number], Echo> = {
  transfer: (args) => ({ transferred: args.amount ?? null, to: args.to ?? null }),
  read_file: (args) => ({ path: args.path ?? null, content: `(demo) contents of ${String(args.path)}` }),
  get_balance: (args) => ({ account: args.account ?? 'default', balance: 1000, currency: 'EUR' }),
  deploy: (args) => ({ deployed: args.service ?? null, version: args.version ?? null, environment: args.environment ?? 'staging' }),
  delete_repo: (args) => ({ deleted: args.repo ?? null }),
};

/**
 * Tools `serve` offers when none are configured. They have no side effects: each
 * echoes its arguments and reports the execution. Each has a definition, so its
 * digest is pinned into proposals and tokens like a real tool's (invariant 9).
 */
export function demoTools(onExecute: (execution: DemoExecution) => void = () => {}): ToolRegistry {
  const tools: Record<string, Tool> = {};
  for (const name of DEMO_TOOL_NAMES) {
    tools[name] = {
      definition: DEFINITIONS[name],
      execute: (args: unknown, context: ToolContext) => {
        onExecute({ tool: name, runId: context.runId, callId: context.callId, principal: context.principal });
        const record = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
        return { demo: true, ...RESULTS[name](record) };
      },
    };
  }
  return tools;
}
