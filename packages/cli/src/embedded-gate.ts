import type { AuditLog } from '@countersign/core/audit';
import { Gate, type IntentConfig } from '@countersign/core/gate';
import { buildSemantic, type BuiltSemantic, type SemanticConfig, SemanticConfigError } from '@countersign/semantic';
import { loadPolicyFile, PolicyError } from '@countersign/core/policy';
import { definitionReviewOf } from './serve/definition-review.ts';
import { timeOrderedId } from '@countersign/server';
import { type MasterKey, resolveMasterKey } from './serve/master-key.ts';
import type { OpenedStore } from './serve/open-store.ts';
import type { StoreTarget } from './serve/store-target.ts';
import { CliError } from './cli-error.ts';

type Policy = Awaited<ReturnType<typeof loadPolicyFile>>;
export type StoreEvents = Awaited<ReturnType<NonNullable<OpenedStore['openEvents']>>>;

/** The policy of an embedded gate (`countersign proxy`, `countersign mcp`); a bad file is a `config` error. */
export async function loadPolicyForCli(file: string): Promise<Policy> {
  return loadPolicyFile(file).catch((error: unknown) => {
    if (error instanceof PolicyError) throw new CliError('config', `invalid policy ${file}: ${error.message}`, { cause: error });
    throw error;
  });
}

/** The keyring an embedded gate signs with (see `resolveMasterKey`); a missing secret is a `config` error. */
export async function masterKeyForCli(env: Readonly<Record<string, string | undefined>>, store: StoreTarget): Promise<MasterKey> {
  return resolveMasterKey(env, store).catch((error: unknown) => {
    throw new CliError('config', error instanceof Error ? error.message : String(error), { cause: error });
  });
}

/** The store's event feed, where it has one (the caller closes it). */
export async function openStoreEvents(store: OpenedStore): Promise<StoreEvents | undefined> {
  return store.openEvents === undefined ? undefined : await store.openEvents();
}

/** The gate a CLI command embeds on the shared store: the store's ledger, audit and definitions, the policy, the keyring. */
export function embeddedGate(
  store: OpenedStore,
  events: StoreEvents | undefined,
  settings: { policy: Policy; keyring: MasterKey['keyring']; trustOnFirstUse: boolean; intent?: IntentConfig | undefined; audit?: AuditLog | undefined },
): Gate {
  return new Gate({
    ledger: store.ledger,
    // The store's log, or the same log wrapped to sign checkpoints (CheckpointingAuditLog).
    audit: settings.audit ?? store.audit,
    definitions: store.definitions,
    policy: settings.policy,
    definitionReview: definitionReviewOf(settings.policy),
    sharedTools: settings.policy.sharedTools,
    trustOnFirstUse: settings.trustOnFirstUse,
    keyring: settings.keyring,
    events,
    intent: settings.intent,
    newId: timeOrderedId,
  });
}

/** The intent stage (and extractor) of a config's `semantic:` section; a bad one is a `config` error. */
export async function semanticForCli(config: SemanticConfig | undefined, env: Readonly<Record<string, string | undefined>>): Promise<BuiltSemantic | undefined> {
  if (config === undefined) return undefined;
  return buildSemantic(config, env).catch((error: unknown) => {
    if (error instanceof SemanticConfigError) throw new CliError('config', `semantic: ${error.message}`, { cause: error });
    throw error;
  });
}
