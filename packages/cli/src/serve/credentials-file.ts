import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LocalCredentials } from './local-credentials.ts';
import { ServeError } from '@countersign/server';
import type { StoreTarget } from './store-target.ts';

export const CREDENTIALS_FILE_NAME = 'credentials.env';

/** Next to the SQLite database (with master.key); for Postgres, in `.countersign/` of the working directory. */
export function credentialsPathFor(target: StoreTarget, resolvePath: (path: string) => string): string {
  return target.kind === 'sqlite' ? join(dirname(target.path), CREDENTIALS_FILE_NAME) : resolvePath(join('.countersign', CREDENTIALS_FILE_NAME));
}

/**
 * Writes the derived local credentials as a shell env file (mode 0600), so they reach
 * the operator without passing through logs: `serve --json` prints this path, never
 * the values. Credentials from the environment are left out (the operator has them).
 * Returns false when every credential came from the environment (no file written).
 * Written to a temporary file and renamed, so a reader never sees half a file, and
 * the mode is set again in case an older file was more open.
 */
export async function writeCredentialsFile(path: string, credentials: LocalCredentials): Promise<boolean> {
  const lines = (
    [
      ['COUNTERSIGN_AGENT_TOKEN', credentials.agentToken],
      ['COUNTERSIGN_APPROVER_PASSWORD', credentials.approverPassword],
      ['COUNTERSIGN_APPROVER_TOKEN', credentials.approverToken],
    ] as const
  )
    .filter(([, credential]) => credential.from === 'derived')
    .map(([name, credential]) => `${name}=${credential.value}`);
  if (lines.length === 0) return false;
  const text = `# Local credentials of \`countersign serve\`, derived from the master secret (same after a restart).\n# Keep private. Load into a shell with: set -a; . ${path}; set +a\n${lines.join('\n')}\n`;
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(temp, text, { mode: 0o600, flag: 'wx' });
    await rename(temp, path);
    await chmod(path, 0o600);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw new ServeError('io_error', `cannot write ${path}: ${(error as Error).message}`, { cause: error });
  }
  return true;
}
