import { decodeSecret, hmacKey, KeyError, Keyring, keyringFromEnv } from '@countersign/core/token';
import { loadOrCreateMasterKeyFile, masterKeyPathFor } from './master-key-file.ts';
import { ServeError } from '@countersign/server';
import type { StoreTarget } from './store-target.ts';

export type MasterKeySource = { kind: 'env' } | { kind: 'file'; path: string; created: boolean };

export interface MasterKey {
  keyring: Keyring;
  /** The active master secret, for deriving session keys and local credentials. */
  secret: Buffer;
  source: MasterKeySource;
  warnings: string[];
}

/**
 * The keyring `serve` signs with. COUNTERSIGN_MASTER_SECRET (plus COUNTERSIGN_KEY_ID
 * and COUNTERSIGN_PREVIOUS_SECRETS) when set; otherwise, for SQLite, a secret kept in
 * `master.key` next to the database so approvals survive restarts (invariant 8).
 * Postgres means several replicas that must share one secret, and a file on one
 * machine cannot give them that, so it needs the env var.
 */
export async function resolveMasterKey(env: Readonly<Record<string, string | undefined>>, store: StoreTarget): Promise<MasterKey> {
  const fromEnv = env.COUNTERSIGN_MASTER_SECRET;
  if (fromEnv !== undefined && fromEnv !== '') {
    try {
      return { keyring: keyringFromEnv(env), secret: decodeSecret(fromEnv), source: { kind: 'env' }, warnings: [] };
    } catch (error) {
      if (error instanceof KeyError) throw new ServeError('invalid_config', `COUNTERSIGN_MASTER_SECRET: ${error.message}`, { cause: error });
      throw error;
    }
  }
  if (store.kind === 'postgres') {
    throw new ServeError(
      'invalid_config',
      'COUNTERSIGN_MASTER_SECRET is required with Postgres: every replica must sign with the same secret (create one with `countersign keygen`)',
    );
  }
  const path = masterKeyPathFor(store.path);
  const file = await loadOrCreateMasterKeyFile(path);
  const keyring = new Keyring([hmacKey(env.COUNTERSIGN_KEY_ID || 'k1', file.secret)]);
  return {
    keyring,
    secret: file.secret,
    source: { kind: 'file', path, created: file.created },
    warnings: file.warning === undefined ? [] : [file.warning],
  };
}
