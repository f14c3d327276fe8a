import type { AuthSummary } from './serve/auth-file.ts';

/** One line per agent, approver and proxy setting, label first; never a secret, only which kinds are set. */
export function describeAuthSummary(summary: AuthSummary): Array<[label: string, text: string]> {
  const lines: Array<[string, string]> = summary.agents.map((agent) => [
    'agent',
    `${agent.name} (bearer token; ${agent.principals === undefined ? 'any principal' : `principals ${agent.principals.join(', ') || 'none'}`})`,
  ]);
  for (const approver of summary.approvers) {
    const ways = [approver.password ? 'password' : undefined, approver.token ? 'API bearer token' : undefined].filter((w) => w !== undefined);
    const roles = approver.roles.length === 0 ? 'no roles' : `roles ${approver.roles.join(', ')}`;
    // Calls acting for these principals (or for the approver's own id) never count them as approvers, unless principalSelf.
    const self = approver.principals === undefined || approver.principals.length === 0 ? '' : `; also principal ${approver.principals.join(', ')}`;
    lines.push(['approver', `${approver.id} (${roles}${self}; ${ways.length === 0 ? 'via the trusted proxy only' : ways.join(', ')})`]);
  }
  const proxy = summary.trustedProxy;
  if (proxy !== undefined) {
    const roles = proxy.rolesHeader === undefined ? 'roles from this file' : `roles from ${proxy.rolesHeader}`;
    const secret = proxy.sharedSecret ? 'shared secret required' : 'NO shared secret: anyone reaching the port can claim any identity';
    lines.push(['proxy', `trusted identity header ${proxy.userHeader}, ${roles}, ${secret}`]);
  }
  return lines;
}

/** "1 agent, 2 approvers". */
export function countAuthSummary(summary: AuthSummary): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(summary.agents.length, 'agent')}, ${plural(summary.approvers.length, 'approver')}`;
}
