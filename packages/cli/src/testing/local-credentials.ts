import { readFileSync } from 'node:fs';

/**
 * `serve --json` names the file with the derived credentials instead of printing them:
 * returns the `listening` event with `agent.token`, `approver.token` and
 * `approver.password` filled in from that file, as tests use them.
 */
// biome-ignore lint/suspicious/noExplicitAny: tests read listening fields one by one.
export function withCredentials(listening: any): any {
  const file = listening.credentials as string;
  const values = Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return {
    ...listening,
    agent: { ...listening.agent, token: values.COUNTERSIGN_AGENT_TOKEN },
    approver: { ...listening.approver, token: values.COUNTERSIGN_APPROVER_TOKEN, password: values.COUNTERSIGN_APPROVER_PASSWORD },
  };
}
