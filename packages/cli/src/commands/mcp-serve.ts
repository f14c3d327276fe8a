import { Readable, Writable } from 'node:stream';
import { CheckpointingAuditLog } from '@countersign/core/audit';
import { MemoryGateEvents } from '@countersign/core/events';
import { createClient } from '@countersign/client';
import {
  applyLock,
  createGateway,
  type Gateway,
  type GatewayApprovalService,
  type GatewayGate,
  type HttpFront,
  type HttpFrontOptions,
  isLoopback,
  readLockFile,
  remoteGatewayGate,
  startHttpFront,
  toolNaming,
} from '@countersign/mcp';
import type { GatewayConfig } from '@countersign/mcp/config';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { describeStoreTarget } from '../serve/store-target.ts';
import { CliError, EXIT_OK } from '../cli-error.ts';
import { writeLine } from '../cli-io.ts';
import { gatewayOptionsOf } from '../gateway-options.ts';
import type { CommandContext } from '../command-context.ts';
import type { McpFlags } from './mcp.ts';
import { embeddedGate, loadPolicyForCli, masterKeyForCli, openStoreEvents, semanticForCli, type StoreEvents } from '../embedded-gate.ts';
import { openStoreForCli } from '../open-store-for-cli.ts';
import { waitForAbort } from '../wait-for-abort.ts';

/**
 * `countersign mcp` once its configuration holds (mcp.ts loaded and checked it): the
 * approval service (embedded gate on the store, or a Countersign server), the gateway
 * in front of the upstreams, served on stdio or Streamable HTTP until the client or a
 * signal ends it.
 */
export async function serveMcp(ctx: CommandContext, flags: McpFlags, config: GatewayConfig): Promise<number> {
  const { stdin, stdout } = ctx.io;
  const log = (line: string) => writeLine(ctx.io.stderr, `countersign mcp: ${line}`);
  const http = flags.http === true ? httpSettings(ctx, config, flags.insecureNoToken === true) : undefined;
  if (flags.insecureNoToken === true && http === undefined) throw new CliError('usage', '--insecure-no-token goes with --http');
  if (http?.bearerToken === undefined && http !== undefined) log('warning: serving without a bearer token (--insecure-no-token): any process on this machine can call the gateway');
  const service = config.approvalService === undefined ? await embeddedService(ctx, config, log) : remoteService(ctx, config.approvalService);
  let gateway: Gateway | undefined;
  let front: HttpFront | undefined;
  let stdioClosed: Promise<void> | undefined;
  try {
    const gate = await service.open();
    gateway = await createGateway({ ...gatewayOptionsOf(config), log, gate, agent: { id: config.agent } }).catch((error: unknown) => {
      throw new CliError('io', `cannot start the upstreams: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    const where = service.where;
    if (http !== undefined) {
      front = await startHttpFront({ gateway, ...http }).catch((error: unknown) => {
        throw new CliError('io', `cannot listen on ${http.host}:${http.port}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
      log(`serving ${config.upstreams.map((u) => u.name).join(', ')} at ${front.url} (${where})`);
    } else {
      if (!(stdin instanceof Readable) || !(stdout instanceof Writable)) throw new CliError('usage', 'countersign mcp needs a stdin and stdout stream (it speaks MCP over stdio)');
      const closed = new Promise<void>((resolve) => {
        stdin.once('end', resolve);
        stdin.once('close', resolve);
      });
      await gateway.connect(new StdioServerTransport(stdin, stdout));
      log(`serving ${config.upstreams.map((u) => u.name).join(', ')} on stdio (${where})`);
      stdioClosed = closed;
    }
    for (const warning of service.warnings) log(`warning: ${warning}`);
    // A stdio client ends the session by closing stdin; a signal ends either.
    await Promise.race([stdioClosed ?? new Promise<void>(() => {}), waitForAbort(ctx.io.signal)]);
  } finally {
    await front?.close().catch(() => undefined);
    await gateway?.close().catch(() => undefined);
    await service.close();
  }
  return EXIT_OK;
}

/** Where approvals are decided: this process's gate on the store (embedded), or a Countersign server. */
interface ApprovalService {
  readonly where: string;
  readonly warnings: readonly string[];
  open(): Promise<GatewayGate>;
  close(): Promise<void>;
}

/** The embedded gate on the configured store and policy (decided on `countersign serve`'s page on the same store). */
async function embeddedService(ctx: CommandContext, config: GatewayConfig, log: (line: string) => void): Promise<ApprovalService> {
  const policyFile = config.policy;
  if (policyFile === undefined) throw new CliError('config', 'the gateway configuration names no policy file');
  const policy = await loadPolicyForCli(policyFile);
  const master = await masterKeyForCli(ctx.io.env, config.store);
  const semantic = await semanticForCli(config.semantic, ctx.io.env);
  // Checked before the store is opened: a bad lock never creates a database.
  const lock = config.lock === undefined ? undefined : await readLockFile(config.lock);
  if (lock !== undefined && !lock.ok) throw new CliError('config', `invalid lock: ${lock.message}`);
  const store = await openStoreForCli(config.store);
  // Signed checkpoints of the chain head, as `serve` signs them: a gateway running alone leaves a verifiable log too.
  const audit = new CheckpointingAuditLog(store.audit, {
    keyring: master.keyring,
    onError: (error) => log(`warning: audit checkpoint not written: ${error instanceof Error ? error.message : String(error)}`),
  });
  let events: StoreEvents | undefined;
  return {
    where: `store ${describeStoreTarget(config.store)}, policy ${policyFile}`,
    warnings: [
      ...master.warnings,
      ...(config.trustOnFirstUse ? ['trustOnFirstUse: the first definition seen of an unpinned tool is trusted without review (weakens invariant 9)'] : []),
    ],
    async open() {
      // What is there at start is signed first (a log from before checkpoints is covered from here on).
      await audit.checkpoint().catch((error: unknown) => log(`warning: audit checkpoint not written: ${error instanceof Error ? error.message : String(error)}`));
      events = await openStoreEvents(store);
      const intent = semantic && { ...semantic.intent, serverOf: upstreamOf(config) };
      const gate = embeddedGate(store, events, { policy, keyring: master.keyring, trustOnFirstUse: config.trustOnFirstUse, intent, audit });
      if (lock?.ok === true) {
        // Operator pins first, so nothing is served (or trusted) before the lock says what is.
        // On the store itself, as `tools pin` does (the server keeps to the gate's public surface).
        const pinDeps = { definitions: store.definitions, audit: store.audit, clock: () => gate.now(), events: events ?? new MemoryGateEvents() };
        const applied = await applyLock(pinDeps, lock.entries, 'lock');
        if (!applied.ok) throw new CliError('io', `cannot pin from ${config.lock}: ${applied.message}`);
        if (applied.pinned.length > 0) log(`pinned ${applied.pinned.length} tool(s) from ${config.lock}`);
      }
      return gate;
    },
    async close() {
      await events?.close().catch(() => undefined);
      // The last checkpoint, after the last call: a clean stop leaves no unsigned tail.
      await audit.close().catch((error: unknown) => log(`warning: final audit checkpoint not written: ${error instanceof Error ? error.message : String(error)}`));
      await store.close().catch(() => undefined);
    },
  };
}

/** A Countersign server over its agent API, with the agent token from the environment (never from the file). */
function remoteService(ctx: CommandContext, settings: GatewayApprovalService): ApprovalService {
  const token = ctx.io.env[settings.tokenEnv];
  if (token === undefined || token === '') throw new CliError('config', `${settings.tokenEnv} must hold the gateway's agent token for ${settings.url}`);
  return {
    where: `approval service ${settings.url}`,
    warnings: new URL(settings.url).protocol === 'http:' && !isLoopbackUrl(settings.url) ? [`${settings.url} is plain HTTP off this machine: the agent token travels unencrypted`] : [],
    open: async () => remoteGatewayGate(createClient({ baseUrl: settings.url, token })),
    close: async () => undefined,
  };
}

function isLoopbackUrl(url: string): boolean {
  return isLoopbackHost(new URL(url).hostname);
}

/** The HTTP front's own rule (any spelling of IPv6 loopback, bracketed or not). */
function isLoopbackHost(host: string): boolean {
  return isLoopback(host);
}

/** The HTTP front's settings: the config's `http` section, with the bearer token from the environment (never from the file). */
function httpSettings(ctx: CommandContext, config: GatewayConfig, noToken: boolean): Omit<HttpFrontOptions, 'gateway'> & { host: string; port: number } {
  const http = config.http;
  if (http === undefined) throw new CliError('config', '--http needs an `http` section in the gateway configuration (host, port, tokenEnv)');
  const where = { host: http.host, port: http.port, path: http.path, allowedOrigins: http.allowedOrigins, allowedHosts: http.allowedHosts };
  if (noToken) {
    if (!isLoopbackHost(http.host)) throw new CliError('usage', `--insecure-no-token: ${http.host} is not a loopback address`);
    return { ...where, bearerToken: undefined, noTokenOnLoopback: true };
  }
  const token = ctx.io.env[http.tokenEnv];
  if (token === undefined || token.length < 32) throw new CliError('config', `${http.tokenEnv} must hold the bearer token, at least 32 characters (create one with \`countersign keygen\`)`);
  return { ...where, bearerToken: token };
}

/** The upstream a served tool name belongs to (the gateway's own naming), for the intent matcher to rank among its tools. */
function upstreamOf(config: { upstreams: readonly { name: string }[]; namespaced?: boolean | undefined }): (toolName: string) => string | undefined {
  const naming = toolNaming(
    config.upstreams.map((u) => u.name),
    config.namespaced ?? config.upstreams.length > 1,
  );
  return (toolName) => naming.parse(toolName)?.upstream;
}
