import type { AuthSummary } from '../serve/auth-file.ts';
import type { DemoExecution } from '../serve/demo-tools.ts';
import type { LocalCredential, LocalCredentials } from '../serve/local-credentials.ts';
import type { MasterKeySource } from '../serve/master-key.ts';
import { displayText } from '@countersign/core/display';
import type { Logger } from 'pino';
import { type CliIo, writeLine } from '../cli-io.ts';
import { countAuthSummary, describeAuthSummary } from '../describe-auth.ts';

/** Who may call: the generated local agent and approver, or the identities of an --auth file. */
export type StartupIdentities =
  /** `file`: where the derived credentials were written (mode 0600); undefined when all came from the environment. */
  | { kind: 'local'; credentials: LocalCredentials; approver: { id: string; roles: string[] }; file: string | undefined }
  | { kind: 'file'; file: string; summary: AuthSummary };

export interface StartupReport {
  url: string;
  port: number;
  store: string;
  policy: { file: string | undefined; rules: string[] };
  /** Who reviews new or changed definitions of tools agents run themselves. */
  definitions: { reviewers: string; requiredApprovals: number; ttlSeconds: number; from: 'policy' | 'default'; trustOnFirstUse: boolean };
  master: MasterKeySource;
  warnings: string[];
  tools: string[];
  identities: StartupIdentities;
  /** The MCP gateway mounted on the same port (`--mcp`). */
  mcp?: { url: string; upstreams: string[]; agent: string } | undefined;
}

export interface ServeReporter {
  started(report: StartupReport): void;
  executed(execution: DemoExecution): void;
  /** Something went wrong while running that does not stop the service. */
  warning(message: string): void;
  stopping(): void;
  stopped(): void;
}

/**
 * What `serve` prints. The line with the URL comes last, once the port is open:
 * scripts and tests wait for it. Credentials taken from the environment are not
 * echoed. Derived ones are written to a 0600 file; the text output (a terminal) also
 * shows them, the JSON log (which ends up in log stores) only names the file.
 * Secrets of an --auth file are never printed: the operator wrote them.
 * With `logger` the output is that JSON log (`--json`), else text.
 */
export function serveReporter(io: CliIo, logger: Logger | undefined): ServeReporter {
  // The startup report is what scripts wait for: printed whatever --log-level says.
  return logger === undefined ? textReporter(io) : jsonReporter(logger.child({}, { level: 'info' }));
}

function textReporter(io: CliIo): ServeReporter {
  const out = (line: string) => writeLine(io.stdout, line);
  return {
    started(r) {
      out(`store     ${r.store}`);
      if (r.policy.file === undefined) {
        out(`policy    using the example policy (${r.policy.rules.join(', ')}); see \`countersign policy example\`, pass --policy FILE for your own`);
      } else {
        out(`policy    ${r.policy.file} (${r.policy.rules.length} rules)`);
      }
      out(`keys      ${describeMaster(r.master)}`);
      out(`tools     demo tools ${r.tools.join(', ')} (no side effects: they echo their arguments)`);
      out(`reviews   ${describeDefinitions(r.definitions)}`);
      const ids = r.identities;
      if (ids.kind === 'local') {
        out(`agent     bearer token ${shown(ids.credentials.agentToken, 'COUNTERSIGN_AGENT_TOKEN')}`);
        out(`approver  login "${ids.approver.id}" (roles ${ids.approver.roles.join(', ')}), password ${shown(ids.credentials.approverPassword, 'COUNTERSIGN_APPROVER_PASSWORD')}`);
        out(`          API bearer token ${shown(ids.credentials.approverToken, 'COUNTERSIGN_APPROVER_TOKEN')}`);
        if (ids.file !== undefined) out(`          (also in ${ids.file}, mode 0600)`);
      } else {
        out(`auth      ${ids.file} (${countAuthSummary(ids.summary)}; COUNTERSIGN_AGENT_TOKEN and COUNTERSIGN_APPROVER_* are ignored)`);
        for (const [label, text] of describeAuthSummary(ids.summary)) out(`${label.padEnd(9)} ${text}`);
      }
      if (r.mcp !== undefined) out(`mcp       gateway for ${r.mcp.upstreams.join(', ')} at ${r.mcp.url} (bearer token of agent "${r.mcp.agent}")`);
      for (const warning of r.warnings) writeLine(io.stderr, `warning: ${warning}`);
      out(`countersign listening on ${r.url}`);
    },
    executed(e) {
      out(`executed  ${displayText(e.tool)} (run ${displayText(e.runId)}, call ${displayText(e.callId)}, principal ${displayText(e.principal)})`);
    },
    warning(message) {
      writeLine(io.stderr, `warning: ${message}`);
    },
    stopping() {
      out('shutting down');
    },
    stopped() {
      out('stopped');
    },
  };
}

function jsonReporter(logger: Logger): ServeReporter {
  const emit = (value: Record<string, unknown>) => logger.info(value);
  const warn = (message: string) => logger.warn({ event: 'warning', message });
  return {
    started(r) {
      for (const warning of r.warnings) warn(warning);
      emit({
        event: 'listening',
        url: r.url,
        port: r.port,
        store: r.store,
        policy: r.policy.file ?? 'example',
        rules: r.policy.rules,
        master: r.master,
        tools: r.tools,
        ...(r.mcp === undefined ? {} : { mcp: r.mcp }),
        definitionReview: r.definitions,
        ...identitiesJson(r.identities),
      });
    },
    executed(e) {
      emit({ event: 'executed', ...e });
    },
    warning(message) {
      warn(message);
    },
    stopping() {
      emit({ event: 'stopping' });
    },
    stopped() {
      emit({ event: 'stopped' });
    },
  };
}

/**
 * Local mode: the agent's name, the approver's id and roles, and `credentials`, the
 * file holding the derived secrets (null when all came from the environment); never a
 * secret itself. An --auth file gives `auth` with names and roles only.
 */
function identitiesJson(ids: StartupIdentities): Record<string, unknown> {
  if (ids.kind === 'file') return { auth: { file: ids.file, ...ids.summary } };
  return {
    agent: { name: 'agent' },
    approver: { id: ids.approver.id, roles: ids.approver.roles },
    credentials: ids.file ?? null,
  };
}

function describeDefinitions(d: StartupReport['definitions']): string {
  const who = `${d.requiredApprovals === 1 ? '' : `${d.requiredApprovals} of `}${d.reviewers}${d.from === 'default' ? ' (default)' : ''}`;
  const days = d.ttlSeconds % 86_400 === 0 ? `${d.ttlSeconds / 86_400} day${d.ttlSeconds === 86_400 ? '' : 's'}` : `${d.ttlSeconds} s`;
  return `definitions of agents' own tools: reviewed by ${who} within ${days}; trust on first use ${d.trustOnFirstUse ? 'ON' : 'off'}`;
}

function describeMaster(source: MasterKeySource): string {
  if (source.kind === 'env') return 'master secret from COUNTERSIGN_MASTER_SECRET';
  if (source.created) {
    return `generated a master secret and saved it to ${source.path} (mode 0600), so approvals survive restarts; keep it secret`;
  }
  return `master secret from ${source.path}`;
}

function shown(credential: LocalCredential, envName: string): string {
  return credential.from === 'env' ? `from ${envName}` : credential.value;
}
