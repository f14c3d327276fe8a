import { readFile } from 'node:fs/promises';
import { ed25519KeyFromPem, hmacKey, KeyError, Keyring, keyringFromEnv } from '@countersign/core/token';
import { masterKeyPathFor, readMasterKeyFile } from './serve/master-key-file.ts';
import { ServeError } from '@countersign/server';
import type { StoreTarget } from './serve/store-target.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext } from './command-context.ts';

export interface VerifyingKeys {
  keyring: Keyring;
  /** Where the key came from, for the output. */
  source: string;
}

/**
 * The keys to verify with: --key-file (a master key file as `serve` writes it, or an
 * Ed25519 PEM), else --public-key (Ed25519 PEM), else COUNTERSIGN_MASTER_SECRET, else
 * the master.key that `serve` keeps next to a SQLite database. Undefined when none is
 * available: the token can then only be decoded.
 */
export async function verifyingKeys(
  ctx: CommandContext,
  opts: { keyFile?: string | undefined; publicKey?: string | undefined; kid: string; store: StoreTarget | undefined },
): Promise<VerifyingKeys | undefined> {
  try {
    if (opts.keyFile !== undefined) return await keyFromFile(ctx, opts.keyFile, opts.kid);
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
    const flag = opts.keyFile !== undefined ? `--key-file ${opts.keyFile}` : opts.publicKey !== undefined ? `--public-key ${opts.publicKey}` : undefined;
    if (error instanceof Error && flag !== undefined && !(error instanceof CliError)) {
      throw new CliError('config', `${flag}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

/**
 * A PEM file is an Ed25519 key (public or private: either verifies); anything else
 * must be a master secret in the form `serve` writes master.key (hex or base64url).
 */
async function keyFromFile(ctx: CommandContext, file: string, kid: string): Promise<VerifyingKeys> {
  const path = ctx.resolvePath(file);
  const text = await readFile(path, 'utf8').catch((error: Error) => {
    throw new CliError('io', `cannot read ${file}: ${error.message}`, { cause: error });
  });
  if (text.includes('-----BEGIN')) {
    return { keyring: new Keyring([ed25519KeyFromPem(kid, text, 'verify')]), source: `Ed25519 key ${file}` };
  }
  const master = await readMasterKeyFile(path);
  if (master === undefined) throw new CliError('io', `cannot read ${file}: it vanished`);
  return { keyring: new Keyring([hmacKey(kid, master.secret, 'verify')]), source: `master key ${file}` };
}
