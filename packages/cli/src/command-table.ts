import { type Command, Help } from 'commander';
import type { CommandContext } from './command-context.ts';

type Register = (program: Command, ctx: CommandContext) => void;

export interface CommandEntry {
  name: string;
  /** What the root help lists: the command as its module registers it (`serve [options]`). */
  term: string;
  /** The module's own description; a test checks the two never drift apart. */
  summary: string;
  load(): Promise<Register>;
}

/**
 * Every top-level command, in the order the root help lists them. Only the command being
 * run is imported: `countersign --help` and `approvals list` must not load the gateway,
 * the proxy, the stores, the semantic layer or the HTTP server (seconds of start-up).
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'serve',
    term: 'serve [options]',
    summary: 'Run the approval service: agent API, approver API and approval web page, on SQLite (default) or Postgres.',
    load: async () => (await import('./commands/serve.ts')).registerServe,
  },
  {
    name: 'keygen',
    term: 'keygen [options]',
    summary: 'Print a new random 32-byte master secret for COUNTERSIGN_MASTER_SECRET, or an Ed25519 key pair (PEM) with --ed25519.',
    load: async () => (await import('./commands/keygen.ts')).registerKeygen,
  },
  {
    name: 'policy',
    term: 'policy',
    summary: 'Validate and print policies.',
    load: async () => (await import('./commands/policy.ts')).registerPolicyCommands,
  },
  {
    name: 'auth',
    term: 'auth',
    summary: 'Validate the agents and approvers file of `serve --auth`; list registered passkeys.',
    load: async () => (await import('./commands/auth.ts')).registerAuthCommands,
  },
  {
    name: 'audit',
    term: 'audit',
    summary: 'Verify and export the hash-chained audit log.',
    load: async () => (await import('./commands/audit.ts')).registerAuditCommands,
  },
  {
    name: 'approvals',
    term: 'approvals',
    summary: 'Act on approval requests of a running service, as an approver (token in COUNTERSIGN_APPROVER_TOKEN).',
    load: async () => (await import('./commands/approvals.ts')).registerApprovalsCommands,
  },
  {
    name: 'token',
    term: 'token',
    summary: 'Inspect approval tokens.',
    load: async () => (await import('./commands/token.ts')).registerTokenCommands,
  },
  {
    name: 'tools',
    term: 'tools',
    summary: 'Show and pin the definitions of tools agents run themselves (a tool runs only under its pinned definition).',
    load: async () => (await import('./commands/tools.ts')).registerToolsCommands,
  },
  {
    name: 'mcp',
    term: 'mcp [options]',
    summary: 'Run the MCP gateway on stdio: in front of the upstream MCP servers the config names, with pins, policy and call-bound approvals.',
    load: async () => (await import('./commands/mcp.ts')).registerMcp,
  },
  {
    name: 'proxy',
    term: 'proxy [options]',
    summary:
      "Run the OpenAI-compatible recording proxy: records every tool call of the model's responses (CASA check 2) and checks every relayed tool result (check 5) on the shared store.",
    load: async () => (await import('./commands/proxy.ts')).registerProxy,
  },
  {
    name: 'eval',
    term: 'eval',
    summary: 'Measure the optional semantic layer (task extraction and task-tool matching) on a labelled data set.',
    load: async () => (await import('./commands/eval.ts')).registerEvalCommands,
  },
];

/** The command `argv` runs (`help NAME` counts as NAME), if it names one. */
export function commandOf(argv: readonly string[]): CommandEntry | undefined {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  const name = words[0] === 'help' ? words[1] : words[0];
  return COMMANDS.find((entry) => entry.name === name);
}

/**
 * Lists every command by name and summary without importing any: enough for the root
 * help, for `countersign` alone and for commander's "unknown command" suggestions.
 */
export function registerSummaries(program: Command): void {
  const terms = new Map(COMMANDS.map((entry) => [entry.name, entry.term]));
  for (const entry of COMMANDS) program.command(entry.name).description(entry.summary);
  const standard = new Help();
  program.configureHelp({ subcommandTerm: (cmd) => terms.get(cmd.name()) ?? standard.subcommandTerm(cmd) });
}
