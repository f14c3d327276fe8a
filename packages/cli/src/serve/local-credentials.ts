import type { AuthConfig } from '@countersign/server';
import { deriveSecret } from './derive-secret.ts';
import { secretProblem } from './secret-rule.ts';
import { ServeError } from '@countersign/server';

export const LOCAL_AGENT_NAME = 'agent';
export const LOCAL_APPROVER_ID = 'approver';
/**
 * Enough to decide every rule of the example policy except the two-person deploy rule,
 * (role admin, the example policy's `definitionReview`) the review of a tool definition
 * an agent registered, and (role auditor) reading the whole audit trail: the one local
 * approver is also the operator.
 */
export const LOCAL_APPROVER_ROLES: readonly string[] = ['approver', 'finance', 'release-manager', 'admin', 'auditor'];

export interface LocalCredential {
  value: string;
  /** Where it came from: an env var, or derived from the master secret. */
  from: 'env' | 'derived';
}

export interface LocalCredentials {
  agentToken: LocalCredential;
  approverPassword: LocalCredential;
  approverToken: LocalCredential;
}

/**
 * One agent and one approver for local use. Each credential comes from its env var
 * (COUNTERSIGN_AGENT_TOKEN, COUNTERSIGN_APPROVER_PASSWORD, COUNTERSIGN_APPROVER_TOKEN)
 * or is derived from the master secret: unguessable without the secret, and the same
 * after a restart, so a browser login and a running agent keep working.
 */
export function localCredentials(env: Readonly<Record<string, string | undefined>>, master: Uint8Array): LocalCredentials {
  return {
    agentToken: pick(env, 'COUNTERSIGN_AGENT_TOKEN', () => `cs_agent_${derived(master, 'agent-token')}`),
    approverPassword: pick(env, 'COUNTERSIGN_APPROVER_PASSWORD', () => derived(master, 'approver-password').slice(0, 20)),
    approverToken: pick(env, 'COUNTERSIGN_APPROVER_TOKEN', () => `cs_approver_${derived(master, 'approver-token')}`),
  };
}

/** The `auth` option of createApp for these credentials. */
export function authConfigFor(credentials: LocalCredentials, sessionSecret: string): AuthConfig {
  return {
    agents: [{ name: LOCAL_AGENT_NAME, token: credentials.agentToken.value }],
    approvers: [
      {
        id: LOCAL_APPROVER_ID,
        roles: [...LOCAL_APPROVER_ROLES],
        password: credentials.approverPassword.value,
        token: credentials.approverToken.value,
      },
    ],
    sessionSecret,
  };
}

function pick(env: Readonly<Record<string, string | undefined>>, name: string, derive: () => string): LocalCredential {
  const value = env[name];
  if (value === undefined || value === '') return { value: derive(), from: 'derived' };
  const problem = secretProblem(value);
  if (problem !== undefined) throw new ServeError('invalid_config', `${name} ${problem}`);
  return { value, from: 'env' };
}

function derived(master: Uint8Array, label: string): string {
  return deriveSecret(master, `local-credential/${label}`).toString('base64url');
}
