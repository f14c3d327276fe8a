import { parseArgs } from 'node:util';
import { runScriptedAgent } from './scripted-agent.ts';

const USAGE = `Usage: node --conditions=countersign-source examples/agent/run-agent.ts [options]

Runs a scripted agent (no LLM, no network beyond the server) against a running
\`countersign serve\`: a small transfer (runs), a large one (waits for your
approval in the browser) and a repository deletion (denied).

Options:
  --url <url>      server URL (env COUNTERSIGN_URL, default http://127.0.0.1:8787)
  --token <token>  agent bearer token (env COUNTERSIGN_AGENT_TOKEN; \`serve\` prints it)
  --poll           wait for decisions by long-polling instead of the event stream
  --run-id <id>    run id (default: a new one)
  -h, --help       show this help`;

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    poll: { type: 'boolean', default: false },
    'run-id': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const url = values.url ?? process.env.COUNTERSIGN_URL ?? 'http://127.0.0.1:8787';
const agentToken = values.token ?? process.env.COUNTERSIGN_AGENT_TOKEN;
if (agentToken === undefined || agentToken === '') {
  console.error('run-agent: set COUNTERSIGN_AGENT_TOKEN or pass --token (serve prints the agent token when it starts)');
  process.exit(2);
}

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
try {
  const results = await runScriptedAgent({ url, agentToken, wait: values.poll ? 'poll' : 'events', runId: values['run-id'], signal: stop.signal });
  console.log('\nsummary:');
  for (const step of results) console.log(`  ${step.callId.padEnd(30)} ${step.status}${step.reason === undefined ? '' : ` (${step.reason})`}`);
} catch (error) {
  console.error(`run-agent: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
