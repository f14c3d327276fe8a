import { parseArgs } from 'node:util';
import { type ApprovalView, ApproverApi } from './approver-api.ts';

const USAGE = `Usage: node --conditions=countersign-source examples/agent/approve-from-cli.ts [command]

Decide approval requests from a terminal instead of the browser.

Commands:
  list                       pending requests you may decide (default)
  show <request-id>          the exact call a request is about
  approve <request-id>       approve it
  deny <request-id>          deny it

Options:
  --reason <text>  reason recorded with the decision
  --url <url>      server URL (env COUNTERSIGN_URL, default http://127.0.0.1:8787)
  --token <token>  approver API token (env COUNTERSIGN_APPROVER_TOKEN; \`serve\` prints it)
  -h, --help       show this help`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    reason: { type: 'string' },
    url: { type: 'string' },
    token: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const token = values.token ?? process.env.COUNTERSIGN_APPROVER_TOKEN;
if (token === undefined || token === '') {
  console.error('approve-from-cli: set COUNTERSIGN_APPROVER_TOKEN or pass --token');
  process.exit(2);
}
const api = new ApproverApi(values.url ?? process.env.COUNTERSIGN_URL ?? 'http://127.0.0.1:8787', token);
const [command = 'list', requestId] = positionals;

function describe(view: ApprovalView): string {
  const { call } = view;
  return [
    `${view.requestId}  ${view.status}  (${view.approvals}/${view.requiredApprovals} approvals, rule ${view.ruleId ?? '-'}, expires ${new Date(view.expiresAt).toISOString()})`,
    `  ${call.toolName}(${call.canonicalArguments})`,
    `  for ${call.principal}, run ${call.runId}, call ${call.callId}, args sha256 ${call.argsDigest}`,
  ].join('\n');
}

try {
  if (command === 'list') {
    const pending = await api.pending();
    console.log(pending.length === 0 ? 'no pending requests' : pending.map(describe).join('\n\n'));
  } else if ((command === 'show' || command === 'approve' || command === 'deny') && requestId !== undefined) {
    // Show what is being decided first: the server's record, byte for byte.
    console.log(describe(await api.get(requestId)));
    if (command !== 'show') {
      const { request } = await api.decide(requestId, command, values.reason);
      console.log(`decided: ${command}; the request is now ${request?.status ?? 'unknown'}`);
    }
  } else {
    console.error(USAGE);
    process.exitCode = 2;
  }
} catch (error) {
  console.error(`approve-from-cli: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
