import { type CanUseTool, createSdkMcpServer, tool } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';

/**
 * An in-process SDK MCP server (`createSdkMcpServer`) with a bank's tools: what an app
 * gives the runtime as `mcpServers: { bank }`. Each tool records what it ran with, the
 * only proof of "executes nothing". The runtime names them `mcp__bank__<tool>`.
 */
export type Executions = Array<{ tool: string; args: unknown }>;

export const BANK_TOOLS = ['mcp__bank__transfer', 'mcp__bank__read_balance', 'mcp__bank__wipe'] as const;

/** Transfers need an ops approver, balances are allowed, no rule names wipe: rules to add to a policy. */
export const BANK_RULES = `
  - id: transfers
    tool: mcp__bank__transfer
    verdict: approve
    approval: { approvers: { roles: [ops] }, ttlSeconds: 600 }
  - id: balances
    tool: mcp__bank__read_balance
    verdict: allow
`;

/** A policy of the bank's rules alone. */
export const BANK_POLICY = `
version: 1
rules:${BANK_RULES}`;

/** `executions` is where each run is recorded: a list, or anything that takes `push` (a runtime shared by several apps routes to the current app's list). */
export function bankServer(executions: Pick<Executions, 'push'>) {
  const ran = (name: string, args: unknown) => {
    executions.push({ tool: `mcp__bank__${name}`, args });
    return { content: [{ type: 'text' as const, text: `${name} done` }] };
  };
  return createSdkMcpServer({
    name: 'bank',
    version: '1.0.0',
    tools: [
      tool('transfer', 'Move money to an account', { to: z.string(), amount: z.number() }, async (args) => ran('transfer', args)),
      tool('read_balance', 'Read an account balance', { account: z.string() }, async (args) => ran('read_balance', args)),
      tool('wipe', 'Close an account', { account: z.string() }, async (args) => ran('wipe', args)),
    ],
  });
}

/** The SDK's own permission callback saying yes to everything: what a forged approval in the framework amounts to. */
export const allowEverything: CanUseTool = async (_name, input) => ({ behavior: 'allow', updatedInput: input });
