/** A tool the agent runs itself, after the approval service authorized the exact call. */
export type LocalTool = (args: Record<string, unknown>) => unknown;

/** One run of a local tool, so the example (and its test) can show what ran, and how often. */
export interface LocalExecution {
  tool: string;
  proposalId: string;
  args: Record<string, unknown>;
}

/**
 * The agent's own tools (demo: nothing is moved or deleted). They live in the agent
 * process: the approval service never runs them, it only decides whether they may run
 * and records the result.
 */
export function localTools(): Record<string, LocalTool> {
  return {
    transfer: (args) => ({ demo: true, transferred: args.amount ?? null, to: args.to ?? null }),
    delete_repo: (args) => ({ demo: true, deleted: args.repo ?? null }),
  };
}
