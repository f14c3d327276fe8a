import { type ConfigFormat, describeZodIssues, formatPath, parseConfigText, readConfigFile } from '@countersign/core/config';
import type { AuthConfig } from '@countersign/server';
import { AuthFileError } from './auth-file-error.ts';
import { type AuthFileDocument, authFileSchema } from './auth-file-schema.ts';
import { secretProblem } from './secret-rule.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Who the file lets in, without any secret: safe to print. */
export interface AuthSummary {
  agents: Array<{ name: string; principals?: string[] }>;
  /** `password` / `token`: whether that way of signing in is configured. */
  /** `principals`: present when the file lists the principals this approver also is. */
  approvers: Array<{ id: string; roles: string[]; principals?: string[]; password: boolean; token: boolean }>;
  trustedProxy?: { userHeader: string; rolesHeader?: string; sharedSecret: boolean };
}

export interface LoadedAuth {
  file: string;
  /** The `auth` option of createApp, without the session secret (serve derives that). */
  config: Omit<AuthConfig, 'sessionSecret'>;
  summary: AuthSummary;
}

const ENV_PREFIX = 'env:';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads and validates an auth file (format by extension), resolving `env:NAME`
 * secrets from `env`. Throws AuthFileError listing every problem found.
 */
export async function loadAuthFile(path: string, env: Env): Promise<LoadedAuth> {
  const file = await readConfigFile(path, 'auth');
  if (!file.ok) throw new AuthFileError('unreadable_auth', [file.problem], { cause: file.cause });
  return { file: path, ...parseAuthFile(file.text, file.format, env) };
}

/** Validates auth file text (core's strict config reader, then the schema); see loadAuthFile. */
export function parseAuthFile(text: string, format: ConfigFormat, env: Env): Omit<LoadedAuth, 'file'> {
  // No aliases needed in an auth file; a small bound stops expansion attacks.
  const parsed = parseConfigText(text, format, { maxAliasCount: 16 });
  if (!parsed.ok) throw new AuthFileError('invalid_auth', parsed.problems);
  const shaped = authFileSchema.safeParse(parsed.value, { reportInput: true });
  if (!shaped.success) throw new AuthFileError('invalid_auth', describeZodIssues(shaped.error.issues));
  return resolveDocument(shaped.data, env);
}

function resolveDocument(doc: AuthFileDocument, env: Env): Omit<LoadedAuth, 'file'> {
  const problems: string[] = [];
  // Every bearer token with where it was set: one token for two identities would make them one.
  const tokenOwners = new Map<string, string>();
  const secret = (ref: string, path: (string | number)[], bearer: boolean): string => {
    const where = formatPath(path);
    const value = resolveRef(ref, where, env, problems);
    if (value === undefined) return '';
    const problem = secretProblem(value);
    if (problem !== undefined) problems.push(`${where}: ${problem}${ref.startsWith(ENV_PREFIX) ? ` (${ref})` : ''}`);
    if (bearer) {
      const earlier = tokenOwners.get(value);
      if (earlier !== undefined) problems.push(`${where}: same token as ${earlier}; every identity needs its own`);
      else tokenOwners.set(value, where);
    }
    return value;
  };

  duplicates(doc.agents.map((a) => a.name), 'agents', 'name', 'agent name', problems);
  duplicates(doc.approvers.map((a) => a.id), 'approvers', 'id', 'approver id', problems);

  const agents = doc.agents.map((agent, i) => ({
    name: agent.name,
    token: secret(agent.token, ['agents', i, 'token'], true),
    ...(agent.principals === undefined ? {} : { principals: [...agent.principals] }),
  }));
  const approvers = doc.approvers.map((approver, i) => {
    if (approver.password === undefined && approver.token === undefined && doc.trustedProxy === undefined) {
      problems.push(`${formatPath(['approvers', i])}: needs a password or a token (or a trustedProxy that vouches for it)`);
    }
    return {
      id: approver.id,
      roles: [...approver.roles],
      ...(approver.principals === undefined ? {} : { principals: [...approver.principals] }),
      ...(approver.password === undefined ? {} : { password: secret(approver.password, ['approvers', i, 'password'], false) }),
      ...(approver.token === undefined ? {} : { token: secret(approver.token, ['approvers', i, 'token'], true) }),
    };
  });

  const proxy = doc.trustedProxy;
  let trustedProxy: AuthConfig['trustedProxy'];
  if (proxy !== undefined) {
    if ((proxy.sharedSecret === undefined) !== (proxy.sharedSecretHeader === undefined)) {
      problems.push('trustedProxy: needs both sharedSecretHeader and sharedSecret, or neither');
    }
    trustedProxy = {
      userHeader: proxy.userHeader,
      ...(proxy.rolesHeader === undefined ? {} : { rolesHeader: proxy.rolesHeader }),
      ...(proxy.sharedSecretHeader === undefined ? {} : { sharedSecretHeader: proxy.sharedSecretHeader }),
      ...(proxy.sharedSecret === undefined ? {} : { sharedSecret: secret(proxy.sharedSecret, ['trustedProxy', 'sharedSecret'], false) }),
    };
  }
  if (problems.length > 0) throw new AuthFileError('invalid_auth', problems);

  return {
    config: { agents, approvers, ...(trustedProxy === undefined ? {} : { trustedProxy }) },
    summary: {
      agents: agents.map((a) => ({ name: a.name, ...(a.principals === undefined ? {} : { principals: a.principals }) })),
      approvers: approvers.map((a) => ({
        id: a.id,
        roles: a.roles,
        ...(a.principals === undefined ? {} : { principals: a.principals }),
        password: a.password !== undefined,
        token: a.token !== undefined,
      })),
      ...(proxy === undefined
        ? {}
        : {
            trustedProxy: {
              userHeader: proxy.userHeader,
              ...(proxy.rolesHeader === undefined ? {} : { rolesHeader: proxy.rolesHeader }),
              sharedSecret: proxy.sharedSecret !== undefined,
            },
          }),
    },
  };
}

/** `env:NAME` → the variable's value; anything else is the secret itself. Undefined (with a problem) when unset. */
function resolveRef(ref: string, where: string, env: Env, problems: string[]): string | undefined {
  if (!ref.startsWith(ENV_PREFIX)) return ref;
  const name = ref.slice(ENV_PREFIX.length);
  if (!ENV_NAME.test(name)) {
    problems.push(`${where}: "${ref}" is not a valid env reference (env:NAME, NAME of letters, digits and _)`);
    return undefined;
  }
  const value = env[name];
  if (value === undefined || value === '') {
    problems.push(`${where}: environment variable ${name} is not set or empty`);
    return undefined;
  }
  return value;
}

function duplicates(values: string[], list: string, key: string, what: string, problems: string[]): void {
  const first = new Map<string, number>();
  values.forEach((value, i) => {
    const earlier = first.get(value);
    if (earlier === undefined) first.set(value, i);
    else problems.push(`${formatPath([list, i, key])}: duplicate ${what} "${value}" (also ${formatPath([list, earlier, key])})`);
  });
}
