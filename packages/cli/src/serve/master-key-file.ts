import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { decodeSecret, MIN_SECRET_BYTES } from '@countersign/core/token';
import { ServeError } from '@countersign/server';

export const MASTER_KEY_FILE_NAME = 'master.key';

/** The key file `serve` keeps next to a SQLite database. */
export function masterKeyPathFor(dbPath: string): string {
  return join(dirname(dbPath), MASTER_KEY_FILE_NAME);
}

export interface MasterKeyFile {
  secret: Buffer;
  /** True when this call generated the file. */
  created: boolean;
  /** Set when the file is readable by other users. */
  warning?: string | undefined;
}

/** Reads the key file; undefined when it does not exist. */
export async function readMasterKeyFile(path: string): Promise<MasterKeyFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ServeError('io_error', `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  let secret: Buffer;
  try {
    secret = decodeSecret(text);
  } catch (error) {
    throw new ServeError('invalid_config', `${path} does not hold a hex or base64url secret`, { cause: error });
  }
  if (secret.byteLength < MIN_SECRET_BYTES) {
    throw new ServeError('invalid_config', `${path} holds ${secret.byteLength} bytes; a master secret needs at least ${MIN_SECRET_BYTES}`);
  }
  const mode = (await stat(path)).mode;
  // Like ssh with private keys, but a warning: some filesystems cannot express 0600.
  const warning =
    (mode & 0o077) !== 0 ? `${path} is accessible to other users (mode ${(mode & 0o777).toString(8)}); run chmod 600 ${path}` : undefined;
  return { secret, created: false, warning };
}

/**
 * Reads the key file, creating it (mode 0600) with a new random secret when it is
 * missing. The secret is written to a temporary file and hard-linked into place,
 * which fails if the file appeared meanwhile: two processes starting together end
 * up with the same secret, never with one overwriting the other's.
 */
export async function loadOrCreateMasterKeyFile(path: string): Promise<MasterKeyFile> {
  const existing = await readMasterKeyFile(path);
  if (existing !== undefined) return existing;
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  let created = false;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(temp, `${randomBytes(MIN_SECRET_BYTES).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    await link(temp, path);
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new ServeError('io_error', `cannot create ${path}: ${(error as Error).message}`, { cause: error });
    }
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  const written = await readMasterKeyFile(path);
  if (written === undefined) throw new ServeError('io_error', `${path} vanished right after it was created`);
  return { ...written, created };
}
