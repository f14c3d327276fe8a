/**
 * Profiles the in-memory propose alone (setup excluded), as the HTTP rows propose: one
 * allowed-by-policy call per model response, 200 B or 10 KB of arguments.
 *   node --conditions=countersign-source bench/probes/propose-profile.ts [gate|app] [200B|10KB] [ops] [out.cpuprofile]
 * `gate`: `gate.proposeResponse` with the arguments as the server hands them over (parsed).
 * `app`: the whole app's POST /api/v1/proposals in process (`app.fetch` with a WHATWG
 * Request: no socket, no node adapter), so route, intake, zod and response encoding show.
 * Prints µs per propose (bench/probes/profile-rounds.ts); with an output path, the last round's
 * CPU profile goes there for bench/probes/profile-summary.ts.
 */
import { randomBytes } from 'node:crypto';
import { createApp } from '@countersign/server';
import { allowTransferMemoryGate } from './allow-transfer-gate.ts';
import { ARGUMENT_CASES } from '../arguments.ts';
import { BENCH_AGENT_TOKEN, BENCH_TOOL } from '../http-flows.ts';
import { profileRounds } from './profile-rounds.ts';

const mode = process.argv[2] ?? 'gate';
const label = (process.argv[3] ?? '200B').replace(/\s/g, '');
const ops = Number(process.argv[4] ?? 20_000);
const out = process.argv[5];
const arg = ARGUMENT_CASES.find((a) => a.label.replace(/\s/g, '') === label);
if (arg === undefined) throw new Error(`no argument case ${label}`);
if (mode !== 'gate' && mode !== 'app') throw new Error(`mode must be gate or app, not ${mode}`);

// What @hono/node-server passes as the bindings, so the route's throttle sees a peer address.
const NODE_BINDINGS = { incoming: { socket: { remoteAddress: '127.0.0.1', remotePort: 40000, remoteFamily: 'IPv4' } } };
const body = (i: number) => ({ runId: 'run-bench', sessionId: 's', principal: 'user:bench', toolCalls: [{ id: `c${i}`, name: BENCH_TOOL, arguments: arg.args }] });
const auth = { agents: [{ name: 'bench-agent', token: BENCH_AGENT_TOKEN }], approvers: [], sessionSecret: randomBytes(32).toString('hex') };

await profileRounds({
  what: `${arg.label} propose (${mode})`,
  ops,
  rounds: Number(process.env.ROUNDS ?? 4),
  out,
  prepare: async () => {
    const gate = allowTransferMemoryGate();
    if (mode === 'gate') {
      const agent = { id: 'bench-agent' };
      const responses = Array.from({ length: ops }, (_, i) => body(i));
      return async () => {
        for (const response of responses) {
          const [outcome] = await gate.proposeResponse(response, agent);
          if (outcome?.status !== 'allowed') throw new Error(`propose gave ${JSON.stringify(outcome)}`);
        }
      };
    }
    const { app } = createApp({ gate, auth });
    const texts = Array.from({ length: ops }, (_, i) => JSON.stringify(body(i)));
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_AGENT_TOKEN}` };
    return async () => {
      for (const text of texts) {
        const request = new Request('http://127.0.0.1/api/v1/proposals', { method: 'POST', headers: { ...headers, 'content-length': String(text.length) }, body: text });
        const response = await app.fetch(request, NODE_BINDINGS);
        if (response.status !== 200) throw new Error(`POST /proposals gave ${response.status}: ${await response.text()}`);
        await response.text();
      }
    };
  },
});
