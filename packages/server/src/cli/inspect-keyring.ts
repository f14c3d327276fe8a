import { readFile } from 'node:fs/promises';
import { ed25519KeyFromPem, hmacKey, KeyError, Keyring, keyringFromEnv } from '@countersign/core';
import { masterKeyPathFor, readMasterKeyFile } from '../serve/master-key-file.ts';
import { ServeError } from '../serve/serve-error.ts';
import type { StoreTarget } from '../serve/store-target.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext } from './command-context.ts';

export interface VerifyingKeys {
  keyring: Keyring;
  /** Where the key came from, for the output. */
  source: string;
}

/**
 * The keys to verify with: --public-key (Ed25519 PEM), else COUNTERSIGN_MASTER_SECRET,
 * else the master.key that `serve` keeps next to a SQLite database. Undefined when
 * none is available: the token can then only be decoded.
 */
export async function verifyingKeys(
  ctx: CommandContext,
  opts: { publicKey?: string | undefined; kid: string; store: StoreTarget | undefined },
): Promise<VerifyingKeys | undefined> {
  try {
    if (opts.publicKey !== undefined) {
      const path = ctx.resolvePath(opts.publicKey);
      const pem = await readFile(path, 'utf8').catch((error: Error) => {
        throw new CliError('io', `cannot read ${opts.publicKey}: ${error.message}`, { cause: error });
      });
      return { keyring: new Keyring([ed25519KeyFromPem(opts.kid, pem, 'verify')]), source: `public key ${opts.publicKey}` };
    }
    const env = ctx.io.env;
    if (env.COUNTERSIGN_MASTER_SECRET !== undefined && env.COUNTERSIGN_MASTER_SECRET !== '') {
      return { keyring: keyringFromEnv(env), source: 'COUNTERSIGN_MASTER_SECRET' };
    }
    if (opts.store?.kind === 'sqlite') {
      const path = masterKeyPathFor(opts.store.path);
      const file = await readMasterKeyFile(path);
      if (file !== undefined) {
        return { keyring: new Keyring([hmacKey(env.COUNTERSIGN_KEY_ID || 'k1', file.secret, 'verify')]), source: path };
      }
    }
    return undefined;
  } catch (error) {
    if (error instanceof KeyError || error instanceof ServeError) throw new CliError('config', error.message, { cause: error });
    // node:crypto rejects a PEM that is not a key.
    if (error instanceof Error && opts.publicKey !== undefined && !(error instanceof CliError)) {
      throw new CliError('config', `--public-key ${opts.publicKey}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}
