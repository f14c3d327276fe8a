import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runWorkers } from '../harness.ts';
import { ECHO_TOOL } from '../mcp-child-ipc.ts';

let counter = 0;

/**
 * The MCP probes' load: `workers` of the `sessions` call the echo tool back to back, each
 * with a text never sent before, until `ms` have passed. Returns the calls made; a call
 * answered with an error stops the probe (its numbers would not be the gateway's).
 */
export async function driveEchoCalls(sessions: readonly Client[], workers: number, ms: number): Promise<number> {
  const deadline = performance.now() + ms;
  let calls = 0;
  await runWorkers(workers, async (w) => {
    while (performance.now() < deadline) {
      const result = await sessions[w]!.callTool({ name: ECHO_TOOL, arguments: { text: `call-${counter++}` } });
      if (result.isError === true) throw new Error(JSON.stringify(result));
      calls++;
    }
  });
  return calls;
}
