import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { CliError } from './cli-error.ts';

/**
 * The approver's config file, `$XDG_CONFIG_HOME/countersign/config.json` (else
 * `~/.config/countersign/config.json`): `url`, and where the token is (`tokenFile`), so a
 * terminal approver need not export variables in every shell. Flags win over the
 * environment, the environment over this file.
 */
const CliConfig = z.strictObject({
  url: z.string().min(1).optional(),
  /** A file holding the approver token (relative paths are relative to the config file's folder). */
  tokenFile: z.string().min(1).optional(),
  /** The token itself: accepted only when the config file is readable by its owner alone. */
  token: z.string().min(1).optional(),
});
type CliConfig = z.infer<typeof CliConfig>;

export function cliConfigPath(env: Readonly<Record<string, string | undefined>>): string {
  const base = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), '.config');
  return join(base, 'countersign', 'config.json');
}

/** The config file's settings; none when there is no file. A file that is there but wrong is a CliError (exit 2). */
export function readCliConfig(env: Readonly<Record<string, string | undefined>>): { path: string; config: CliConfig } | undefined {
  const path = cliConfigPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError('config', `cannot read ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliError('config', `${path} is not JSON: ${(error as Error).message}`);
  }
  const parsed = CliConfig.safeParse(json);
  if (!parsed.success) throw new CliError('config', `${path}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'file'}: ${i.message}`).join('; ')} (keys: url, tokenFile)`);
  if (parsed.data.token !== undefined) refuseShared(path, 'holds a token');
  return { path, config: parsed.data };
}

/** The approver token from the config file: its `tokenFile` (which must be private too), or its `token`. */
export function configuredToken(found: { path: string; config: CliConfig }): string | undefined {
  const { tokenFile, token } = found.config;
  if (tokenFile === undefined) return token;
  const path = isAbsolute(tokenFile) ? tokenFile : resolve(join(found.path, '..'), tokenFile);
  refuseShared(path, `is the token file named in ${found.path}`);
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new CliError('config', `cannot read the token file ${path} (named in ${found.path}): ${(error as Error).message}`);
  }
}

/** A token in a file other users may read is already leaked: refuse it rather than use it. */
function refuseShared(path: string, what: string): void {
  if (process.platform === 'win32') return;
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return; // Missing: reported by the read that follows.
  }
  if ((mode & 0o077) !== 0) {
    throw new CliError('config', `${path} ${what} but other users may read it (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`);
  }
}
