import { CheckpointingAuditLog } from '@countersign/core/audit';
import { PolicyError } from '@countersign/core/policy';
import type { Command } from 'commander';
import { type AuthConfig, mcpPathProblem, ServerConfigError, type WebhookOptions } from '@countersign/server';
import { type LoadedAuth, loadAuthFile } from '../serve/auth-file.ts';
import { AuthFileError } from '../serve/auth-file-error.ts';
import { gatewayOptionsOf } from '../gateway-options.ts';
import { demoTools, DEMO_TOOL_NAMES } from '../serve/demo-tools.ts';
import { definitionReviewOf, describeReviewers, someoneCanReview } from '../serve/definition-review.ts';
import { deriveSecret } from '../serve/derive-secret.ts';
import { checkCanListen, isLoopback, localUrl } from '@countersign/server';
import { authConfigFor, LOCAL_APPROVER_ID, LOCAL_APPROVER_ROLES, type LocalCredentials, localCredentials } from '../serve/local-credentials.ts';
import { resolveMasterKey } from '../serve/master-key.ts';
import { ServeError } from '@countersign/server';
import { loadServePolicy } from '../serve/serve-policy.ts';
import type { RunningServer, StartServerOptions } from '@countersign/server';
import { describeStoreTarget } from '../serve/store-target.ts';
import { CliError, EXIT_OK } from '../cli-error.ts';
import type { CommandContext } from '../command-context.ts';
import { openStoreForCli } from '../open-store-for-cli.ts';
import { parseIntegerFlag } from '../parse-number.ts';
import { addStoreOptions, type StoreFlags, storeTargetFrom } from '../store-flags.ts';
import { waitForAbort } from '../wait-for-abort.ts';
import type { Level, Logger } from 'pino';
import { createLogger, LOG_LEVELS } from '@countersign/server';
import { credentialsPathFor, writeCredentialsFile } from '../serve/credentials-file.ts';
import { secretProblem } from '../serve/secret-rule.ts';
import { serveReporter, type StartupIdentities } from './serve-reporter.ts';

interface ServeFlags extends StoreFlags {
  policy?: string;
  auth?: string;
  port: string;
  host: string;
  publicUrl?: string;
  webhookUrl?: string;
  webhookFormat: string;
  slackWebhookUrl?: string;
  webhookArgumentSummary?: true;
  pollIntervalMs?: string;
  requestTimeoutMs: string;
  trustOnFirstUse?: true;
  json?: true;
  logLevel?: string;
  metrics: boolean;
  mcp?: string;
  mcpPath: string;
}

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';

export function registerServe(program: Command, ctx: CommandContext): void {
  addStoreOptions(
    program
      .command('serve')
      .description('Run the approval service: agent API, approver API and approval web page, on SQLite (default) or Postgres.'),
  )
    .option('--policy <file>', 'policy file (.yaml, .yml, .json); default: the example policy')
    .option('--auth <file>', 'agents and approvers (.yaml, .yml, .json); default: one local agent and approver (see `countersign auth check`)')
    .option('-p, --port <port>', 'port to listen on (0 picks a free one)', String(DEFAULT_PORT))
    .option('--host <address>', 'address to bind', DEFAULT_HOST)
    .option('--public-url <url>', 'origin browsers use to reach the service, when behind a proxy')
    .option('--webhook-url <url>', 'POST signed events (request created, decided, executed, completed, expired) here; secret from COUNTERSIGN_WEBHOOK_SECRET')
    .option('--webhook-format <format>', 'countersign (JSON, signed) or slack (a Slack incoming-webhook message with a link button)', 'countersign')
    .option('--slack-webhook-url <url>', 'also post the same events to this Slack incoming webhook (a message with a button to the request page); needs no secret')
    .option('--webhook-argument-summary', "include a display-safe summary of the call's top-level arguments in webhooks (default: their digest only)")
    .option('--request-timeout-ms <ms>', 'how long a client may take to send a whole request (headers and body) before a 408', '30000')
    .option('--poll-interval-ms <ms>', 'how often waiting clients re-read the store, the safety net for missed events (on Postgres, replicas also notify each other at once)')
    .option(
      '--trust-on-first-use',
      "trust the first definition an agent registers for a tool nobody pinned yet, without review. Off by default: it weakens invariant 9 (a tool runs only under a definition a person approved); later changes are still reviewed",
    )
    .option('--json', 'print startup details, requests and events as JSON log lines (time, level, event, ids, reason codes)')
    .option('--log-level <level>', `JSON log level: ${LOG_LEVELS.join(', ')} (default info with --json; without --json, setting it writes the JSON log to stderr)`)
    .option('--no-metrics', 'serve no /metrics endpoint')
    .option('--mcp <file>', "mount the MCP gateway of FILE (upstreams, principal, agent...; the gateway config without policy, store or http) on this port, sharing this service's gate")
    .option('--mcp-path <path>', 'URL path of the mounted MCP endpoint', '/mcp')
    .addHelpText(
      'after',
      `
Environment:
  COUNTERSIGN_MASTER_SECRET      signing secret (hex/base64url, >= 32 bytes). Without it, SQLite mode keeps a
                                 generated one in master.key next to the database; Postgres mode requires it.
  COUNTERSIGN_KEY_ID             key id of the master secret (default k1)
  COUNTERSIGN_PREVIOUS_SECRETS   verify-only keys from earlier rotations: "kid:secret,kid:secret"
  COUNTERSIGN_DATABASE_URL       PostgreSQL connection string (same as --database-url)
  COUNTERSIGN_PG_SCHEMA          PostgreSQL schema (same as --pg-schema)
  COUNTERSIGN_AGENT_TOKEN        bearer token of the agent (default: derived from the master secret)
  COUNTERSIGN_APPROVER_PASSWORD  login password of approver "${LOCAL_APPROVER_ID}" (default: derived)
  COUNTERSIGN_APPROVER_TOKEN     API bearer token of approver "${LOCAL_APPROVER_ID}" (default: derived)
  COUNTERSIGN_WEBHOOK_SECRET     signing secret for --webhook-url
  COUNTERSIGN_METRICS_TOKEN      bearer token a Prometheus scrape of /metrics must send (default: /metrics is open)

With --auth FILE the agents and approvers come from FILE only: no local credentials are generated and
COUNTERSIGN_AGENT_TOKEN / COUNTERSIGN_APPROVER_* are ignored. Secrets in FILE may be "env:NAME".

Tools an agent runs itself (PUT /api/v1/tools) run only under a definition a person approved. Who
reviews a new or changed definition is the policy's definitionReview (default: one holder of the role
admin, within 7 days); the local approver "${LOCAL_APPROVER_ID}" holds role admin. See \`countersign tools\`.

--mcp FILE mounts the MCP gateway of FILE (a \`countersign mcp\` config without policy, store, approvalService,
trustOnFirstUse or http: this service's apply) at --mcp-path on this port. Its \`agent\` must be one of this
service's agents; only that agent's bearer token opens the endpoint.

Stops cleanly on SIGINT or SIGTERM.`,
    )
    .action(async (flags: ServeFlags) => {
      ctx.setExitCode(await serve(ctx, flags));
    });
}

async function serve(ctx: CommandContext, flags: ServeFlags): Promise<number> {
  const { env } = ctx.io;
  const port = parseIntegerFlag('--port', flags.port, 0, 65_535);
  const requestTimeoutMs = parseIntegerFlag('--request-timeout-ms', flags.requestTimeoutMs, 100, 600_000);
  const pollIntervalMs = flags.pollIntervalMs === undefined ? undefined : parseIntegerFlag('--poll-interval-ms', flags.pollIntervalMs, 10, 60_000);
  const publicOrigin = flags.publicUrl === undefined ? undefined : parseOrigin('--public-url', flags.publicUrl);
  const webhook = webhookFrom(flags, env.COUNTERSIGN_WEBHOOK_SECRET);
  const slackUrl = flags.slackWebhookUrl === undefined ? undefined : checkedUrl('--slack-webhook-url', flags.slackWebhookUrl);
  const target = storeTargetFrom(ctx, flags, { mustExist: false });
  const logger = serveLogger(ctx, flags);
  const report = serveReporter(ctx.io, flags.json === true ? logger : undefined);
  const metricsToken = flags.metrics === false ? false : metricsTokenFrom(env.COUNTERSIGN_METRICS_TOKEN);

  // Everything that can be wrong with the configuration fails before the store is touched.
  const policy = await loadServePolicy(flags.policy === undefined ? undefined : ctx.resolvePath(flags.policy)).catch(policyFailure);
  const auth = flags.auth === undefined ? undefined : await loadAuthFile(ctx.resolvePath(flags.auth), env).catch((error: unknown) => authFailure(error, flags.auth));
  // A port in use fails here, before master.key, credentials.env or the database are created.
  await checkCanListen(port, flags.host).catch(serveFailure);
  const master = await resolveMasterKey(env, target).catch(serveFailure);
  const sessionSecret = deriveSecret(master.secret, 'session-cookie').toString('hex');
  // Slack does not check signatures; the sender signs every delivery anyway, with a derived key.
  const webhooks = [
    ...(webhook === undefined ? [] : [webhook]),
    ...(slackUrl === undefined
      ? []
      : [{ url: slackUrl, secret: deriveSecret(master.secret, 'slack-webhook').toString('hex'), format: 'slack' as const, argumentSummary: flags.webhookArgumentSummary === true }]),
  ];
  const local = auth === undefined ? withServeErrors(() => localCredentials(env, master.secret)) : undefined;
  const credentialsFile = local === undefined ? undefined : await writeLocalCredentials(credentialsPathFor(target, ctx.resolvePath), local);
  const { identities, authConfig } = whoMayCall(auth, sessionSecret, local, credentialsFile);
  const review = definitionReviewOf(policy.policy);
  const trustOnFirstUse = flags.trustOnFirstUse === true;
  // The 2026-07-28 front's request-state key: derived, so every replica verifies what another minted.
  const stateKey = deriveSecret(master.secret, 'mcp-request-state');
  const mcp = flags.mcp === undefined ? undefined : await mountedGateway(ctx, flags.mcp, flags.mcpPath, authConfig, { publicOrigin, host: flags.host, port }, stateKey);

  // Loaded here so the other commands never load the HTTP stack.
  const { startServer } = await import('@countersign/server');
  const store = await openStoreForCli(target);
  // Signed checkpoints of the chain head, so someone who can write the store but has
  // no key cannot rewrite the audit trail unnoticed (see `audit verify --key-file`).
  const audit = new CheckpointingAuditLog(store.audit, {
    keyring: master.keyring,
    onError: (error) => report.warning(`audit checkpoint not written: ${error instanceof Error ? error.message : String(error)}`),
  });
  let running: RunningServer | undefined;
  let events: Awaited<ReturnType<NonNullable<typeof store.openEvents>>> | undefined;
  try {
    // Signs what is there at startup: a log from before checkpoints existed gets covered from here on.
    await audit.checkpoint().catch(serveFailure);
    // Replicas on one Postgres schema wake each other's waiters (LISTEN/NOTIFY).
    events =
      store.openEvents === undefined
        ? undefined
        : await store.openEvents().catch((error: unknown) => {
            throw new CliError('io', `cannot listen for other replicas' events on ${describeStoreTarget(target)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
          });
    running = await startServer({
      ledger: store.ledger,
      audit,
      sessions: store.sessions,
      definitions: store.definitions,
      passkeys: store.passkeys,
      policy: policy.policy,
      definitionReview: review,
      sharedTools: policy.policy.sharedTools,
      trustOnFirstUse,
      keyring: master.keyring,
      tools: demoTools((execution) => report.executed(execution)),
      auth: authConfig,
      host: flags.host,
      port,
      publicOrigin,
      webhook: webhooks,
      events,
      logger,
      metricsToken,
      tuning: pollIntervalMs === undefined ? undefined : { pollIntervalMs },
      requestTimeoutMs,
      mcp: mcp?.mount,
    }).catch(serveFailure);
    report.started({
      url: running.url,
      port: running.port,
      store: describeStoreTarget(target),
      policy: { file: policy.file, rules: policy.policy.ruleIds },
      definitions: { reviewers: describeReviewers(review), requiredApprovals: review.requiredApprovals, ttlSeconds: review.ttlSeconds, from: review.from, trustOnFirstUse },
      master: master.source,
      warnings: [
        ...master.warnings,
        ...(trustOnFirstUse ? ['--trust-on-first-use: the first definition registered for an unpinned tool is trusted without review (weakens invariant 9)'] : []),
        ...(someoneCanReview(authConfig, review)
          ? []
          : [`nobody can review tool definitions (${describeReviewers(review)}, ${review.requiredApprovals} needed): tools agents register will wait for review until they expire`]),
        ...(mcp?.warnings ?? []),
        ...(webhooks.length > 0 && publicOrigin === undefined
          ? [`${webhook === undefined ? '--slack-webhook-url' : '--webhook-url'} without --public-url: links in webhooks use the listen address ${running.url}; set --public-url if approvers reach the service at another address`]
          : []),
        ...(isLoopback(flags.host) ? [] : [`listening on ${flags.host}: reachable from other machines; ${auth === undefined ? 'use your own credentials (--auth) and' : 'put'} TLS in front`]),
      ],
      tools: [...DEMO_TOOL_NAMES],
      identities,
      mcp: mcp === undefined ? undefined : { url: `${running.url}${flags.mcpPath}`, upstreams: mcp.upstreams, agent: mcp.agent },
    });
    await waitForAbort(ctx.io.signal);
    report.stopping();
  } finally {
    await running?.close();
    await events?.close().catch(() => undefined);
    // The last checkpoint, after the last request: a clean stop leaves no unsigned tail.
    await audit.close().catch((error: unknown) => report.warning(`final audit checkpoint not written: ${error instanceof Error ? error.message : String(error)}`));
    await store.close().catch(() => undefined);
  }
  report.stopped();
  return EXIT_OK;
}

/** The --auth file's identities, or the local ones (only generated when there is no file). */
function whoMayCall(
  auth: LoadedAuth | undefined,
  sessionSecret: string,
  credentials: LocalCredentials | undefined,
  credentialsFile: string | undefined,
): { identities: StartupIdentities; authConfig: AuthConfig } {
  if (auth !== undefined || credentials === undefined) {
    if (auth === undefined) throw new Error('no identities: neither an --auth file nor local credentials');
    return { identities: { kind: 'file', file: auth.file, summary: auth.summary }, authConfig: { ...auth.config, sessionSecret } };
  }
  return {
    identities: { kind: 'local', credentials, approver: { id: LOCAL_APPROVER_ID, roles: [...LOCAL_APPROVER_ROLES] }, file: credentialsFile },
    authConfig: authConfigFor(credentials, sessionSecret),
  };
}

/** Writes the derived credentials (0600) and returns the path, or undefined when none was derived. */
async function writeLocalCredentials(path: string, credentials: LocalCredentials): Promise<string | undefined> {
  const written = await writeCredentialsFile(path, credentials).catch(serveFailure);
  return written ? path : undefined;
}

/**
 * The JSON log: on stdout with --json (level info unless --log-level), on stderr when
 * only --log-level is given (the text output stays readable on stdout), else none.
 */
function serveLogger(ctx: CommandContext, flags: ServeFlags): Logger | undefined {
  const level = flags.logLevel;
  if (level !== undefined && !LOG_LEVELS.includes(level)) throw new CliError('usage', `--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  if (flags.json === true) return createLogger(ctx.io.stdout, (level ?? 'info') as Level);
  if (level !== undefined) return createLogger(ctx.io.stderr, level as Level);
  return undefined;
}

function metricsTokenFrom(token: string | undefined): string | undefined {
  if (token === undefined || token === '') return undefined;
  const problem = secretProblem(token);
  if (problem !== undefined) throw new CliError('config', `COUNTERSIGN_METRICS_TOKEN ${problem}`);
  return token;
}

function parseOrigin(flag: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError('usage', `${flag} must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError('usage', `${flag} must use http or https`);
  return url.origin;
}

/** `url` itself, once it is an absolute http(s) URL. */
function checkedUrl(flag: string, url: string): string {
  parseOrigin(flag, url);
  return url;
}

function webhookFrom(flags: ServeFlags, secret: string | undefined): WebhookOptions | undefined {
  const url = flags.webhookUrl;
  if (url === undefined) return undefined;
  parseOrigin('--webhook-url', url);
  const format = flags.webhookFormat;
  if (format !== 'countersign' && format !== 'slack') throw new CliError('usage', '--webhook-format must be countersign or slack');
  if (secret === undefined || secret.length < 16) {
    throw new CliError('config', '--webhook-url needs COUNTERSIGN_WEBHOOK_SECRET (at least 16 characters) to sign the events');
  }
  return { url, secret, format, argumentSummary: flags.webhookArgumentSummary === true };
}

function policyFailure(error: unknown): never {
  if (error instanceof PolicyError) {
    throw new CliError(error.code === 'invalid_policy' ? 'config' : 'io', error.message, { cause: error });
  }
  throw error;
}

function authFailure(error: unknown, file: string | undefined): never {
  if (error instanceof AuthFileError) {
    throw new CliError(error.code === 'invalid_auth' ? 'config' : 'io', `--auth ${file}: ${error.message}`, { cause: error });
  }
  throw error;
}

/** Startup errors as CliErrors: configuration problems and I/O problems read differently. */
function serveFailure(error: unknown): never {
  if (error instanceof ServeError) {
    throw new CliError(error.code === 'invalid_config' ? 'config' : 'io', error.message, { cause: error });
  }
  if (error instanceof ServerConfigError) throw new CliError('config', error.message, { cause: error });
  throw error;
}

function withServeErrors<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    return serveFailure(error);
  }
}

/**
 * `--mcp FILE`: the gateway of FILE on this port, over this service's gate (its policy,
 * store, pins and approval pages). Everything that can be wrong with FILE fails here,
 * before the store is touched; the upstreams start with the server.
 */
async function mountedGateway(
  ctx: CommandContext,
  file: string,
  path: string,
  auth: AuthConfig,
  where: { publicOrigin: string | undefined; host: string; port: number },
  stateKey: Uint8Array,
): Promise<{ mount: NonNullable<StartServerOptions['mcp']>; upstreams: string[]; agent: string; warnings: string[] }> {
  const problem = mcpPathProblem(path);
  if (problem !== undefined) throw new CliError('usage', `--mcp-path ${problem}`);
  // Loaded here so a serve without --mcp never loads the MCP stack.
  const { createGateway, gatewayWebHandler, loadGatewayConfigFile } = await import('@countersign/mcp');
  const loaded = await loadGatewayConfigFile(ctx.resolvePath(file), 'mounted');
  if (!loaded.ok) throw new CliError('config', `invalid gateway configuration:\n  ${loaded.problems.join('\n  ')}`);
  const config = loaded.config;
  // The gateway acts as one of this service's agents, under that agent's principals; only its token opens the endpoint.
  const agent = auth.agents.find((a) => a.name === config.agent);
  if (agent === undefined) {
    throw new CliError('config', `${file}: agent ${JSON.stringify(config.agent)} is not an agent of this service (agents: ${auth.agents.map((a) => a.name).join(', ')}); set \`agent:\` to one of them`);
  }
  const origin = where.publicOrigin ?? (where.port === 0 ? undefined : localUrl(where.host, where.port));
  const approvalUrl = config.approvalUrl ?? origin;
  return {
    upstreams: config.upstreams.map((u) => u.name),
    agent: agent.name,
    warnings: approvalUrl === undefined ? ['--mcp with --port 0 and no --public-url: "approval required" results carry the request id but no link'] : [],
    mount: async (gate) => {
      const gateway = await createGateway({
        ...gatewayOptionsOf(config),
        gate,
        agent: { id: agent.name, ...(agent.principals === undefined ? {} : { principals: agent.principals }) },
        approvalUrl,
      }).catch((error: unknown) => {
        throw new CliError('io', `cannot start the MCP upstreams: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
      // DNS rebinding: a Host beside loopback ones only when configured (the public URL, a specific bind address).
      const allowedHosts = [...(where.publicOrigin === undefined ? [] : [new URL(where.publicOrigin).hostname]), ...(isWildcard(where.host) ? [] : [where.host])];
      // A loopback bind accepts its own origins (a port of 0 is known only once listening: then none).
      const bind = where.port === 0 ? undefined : { host: where.host, port: where.port };
      const handler = gatewayWebHandler(gateway, { modern: { stateKey }, allowedHosts, bind });
      return {
        path,
        agent: agent.name,
        handle: handler.handle,
        async close() {
          await handler.close();
          await gateway.close();
        },
      };
    },
  };
}

/** A bind to every address names no host a client would use. */
function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}
