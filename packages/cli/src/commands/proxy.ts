import { agentTokens, loadProxyConfigFile, type RunningProxy, startProxy } from '@countersign/proxy';
import type { Command } from 'commander';
import { loadAuthFile } from '../serve/auth-file.ts';
import { describeStoreTarget } from '../serve/store-target.ts';
import { CliError, EXIT_OK } from '../cli-error.ts';
import { writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { embeddedGate, loadPolicyForCli, masterKeyForCli, openStoreEvents, semanticForCli, type StoreEvents } from '../embedded-gate.ts';
import { openStoreForCli } from '../open-store-for-cli.ts';
import { waitForAbort } from '../wait-for-abort.ts';

interface ProxyFlags {
  config: string;
  auth: string;
}

export function registerProxy(program: Command, ctx: CommandContext): void {
  program
    .command('proxy')
    .description(
      "Run the OpenAI-compatible recording proxy: records every tool call of the model's responses (CASA check 2) and checks every relayed tool result (check 5) on the shared store.",
    )
    .requiredOption('--config <file>', 'proxy configuration (.yaml, .yml or .json)')
    .requiredOption('--auth <file>', 'the agents and their Countersign tokens (the auth file of `countersign serve`)')
    .addHelpText(
      'after',
      '\nAgents call the proxy with their own Countersign token (Authorization: Bearer) and name their run in\n' +
        'the x-countersign-run header, the same run they give the MCP gateway. The upstream key stays here.\n' +
        'Example config:\n' +
        '  upstream:\n' +
        '    baseUrl: https://api.openai.com/v1\n' +
        '    apiKeyEnv: OPENAI_API_KEY          # the upstream key, from the environment\n' +
        '  anthropic:                           # optional: POST /v1/messages\n' +
        '    baseUrl: https://api.anthropic.com/v1\n' +
        '    apiKeyEnv: ANTHROPIC_API_KEY\n' +
        '  policy: ./policy.yaml                # relative paths: from the config file\n' +
        '  store: { sqlite: .countersign/countersign.sqlite }\n' +
        '  principal: alice                     # for requests without x-countersign-principal\n' +
        '  listen: { host: 127.0.0.1, port: 8788 }\n',
    )
    .action(async (flags: ProxyFlags) => {
      ctx.setExitCode(await runProxy(ctx, flags));
    });
}

async function runProxy(ctx: CommandContext, flags: ProxyFlags): Promise<number> {
  const { env } = ctx.io;
  const log = (line: string) => writeLine(ctx.io.stderr, `countersign proxy: ${line}`);
  // Everything that can be wrong with the configuration fails before the store is touched.
  const loaded = await loadProxyConfigFile(ctx.resolvePath(flags.config));
  if (!loaded.ok) throw new CliError('config', `invalid proxy configuration:\n  ${loaded.problems.join('\n  ')}`);
  const config = loaded.config;
  const apiKey = env[config.upstream.apiKeyEnv];
  if (apiKey === undefined || apiKey === '') throw new CliError('config', `${config.upstream.apiKeyEnv} must hold the upstream API key`);
  const anthropicKey = config.anthropic === undefined ? undefined : env[config.anthropic.apiKeyEnv];
  if (config.anthropic !== undefined && (anthropicKey === undefined || anthropicKey === '')) {
    throw new CliError('config', `${config.anthropic.apiKeyEnv} must hold the Anthropic API key`);
  }
  const auth = await loadAuthFile(ctx.resolvePath(flags.auth), env).catch((error: unknown) => {
    throw new CliError('config', `--auth ${flags.auth}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });
  const policy = await loadPolicyForCli(config.policy);
  const master = await masterKeyForCli(env, config.store);
  const semantic = await semanticForCli(config.semantic, env);
  const store = await openStoreForCli(config.store);
  let proxy: RunningProxy | undefined;
  let events: StoreEvents | undefined;
  try {
    events = await openStoreEvents(store);
    const gate = embeddedGate(store, events, { policy, keyring: master.keyring, trustOnFirstUse: config.trustOnFirstUse, intent: semantic?.intent });
    const agents = auth.config.agents.map((a) => ({ ...a, principal: config.principal }));
    proxy = await startProxy({
      gate,
      authenticate: agentTokens(agents),
      upstream: { baseUrl: config.upstream.baseUrl, apiKey, headers: config.upstream.headers },
      anthropic: config.anthropic === undefined ? undefined : { baseUrl: config.anthropic.baseUrl, apiKey: anthropicKey, keyHeader: 'x-api-key', headers: config.anthropic.headers },
      host: config.listen.host,
      port: config.listen.port,
      maxBodyBytes: config.maxBodyBytes,
      extractor: semantic?.extractor,
    }).catch((error: unknown) => {
      throw new CliError('io', `cannot listen on ${config.listen.host}:${config.listen.port}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    log(`OpenAI-compatible base URL ${proxy.baseUrl} → ${config.upstream.baseUrl} (store ${describeStoreTarget(config.store)}, policy ${config.policy})`);
    for (const warning of master.warnings) log(`warning: ${warning}`);
    await waitForAbort(ctx.io.signal);
  } finally {
    await proxy?.close().catch(() => undefined);
    await events?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
  }
  return EXIT_OK;
}
