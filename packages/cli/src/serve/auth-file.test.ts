import { describe, expect, it } from 'vitest';
import { AuthFileError } from './auth-file-error.ts';
import { parseAuthFile } from './auth-file.ts';

const AGENT = 'agent-token-0123456789';
const ALICE = 'alice-token-0123456789';

function problemsOf(text: string, format: 'json' | 'yaml', env: Record<string, string> = {}): readonly string[] {
  try {
    parseAuthFile(text, format, env);
  } catch (error) {
    if (error instanceof AuthFileError) return error.problems;
    throw error;
  }
  throw new Error('expected an AuthFileError');
}

describe('parseAuthFile', () => {
  it('resolves env: references and keeps literal secrets, in YAML and JSON alike', () => {
    const yaml = `agents:\n  - name: a\n    token: env:A_TOKEN\napprovers:\n  - id: alice\n    roles: [finance]\n    token: ${ALICE}\n`;
    const fromYaml = parseAuthFile(yaml, 'yaml', { A_TOKEN: AGENT });
    expect(fromYaml.config).toEqual({ agents: [{ name: 'a', token: AGENT }], approvers: [{ id: 'alice', roles: ['finance'], token: ALICE }] });
    expect(fromYaml.summary).toEqual({ agents: [{ name: 'a' }], approvers: [{ id: 'alice', roles: ['finance'], password: false, token: true }] });
    const json = JSON.stringify({ agents: [{ name: 'a', token: 'env:A_TOKEN' }], approvers: [{ id: 'alice', roles: ['finance'], token: ALICE }] });
    expect(parseAuthFile(json, 'json', { A_TOKEN: AGENT })).toEqual(fromYaml);
  });

  it('approvers may name the principals they are; an empty principal is refused', () => {
    const yaml = `agents:\n  - name: a\n    token: ${AGENT}\napprovers:\n  - id: fiona@corp\n    roles: [finance]\n    principals: [user:42]\n    token: ${ALICE}\n`;
    const parsed = parseAuthFile(yaml, 'yaml', {});
    expect(parsed.config.approvers[0]).toEqual({ id: 'fiona@corp', roles: ['finance'], principals: ['user:42'], token: ALICE });
    expect(parsed.summary.approvers[0]).toEqual({ id: 'fiona@corp', roles: ['finance'], principals: ['user:42'], password: false, token: true });
    expect(problemsOf(yaml.replace('[user:42]', '[""]'), 'yaml')).toEqual(['approvers[0].principals[0]: must not be empty']);
  });

  it('reads an agent\'s principals (exact names or patterns) and refuses malformed ones', () => {
    const yaml = `agents:\n  - name: a\n    token: ${AGENT}\n    principals: ['team:*', user:7]\n`;
    const parsed = parseAuthFile(yaml, 'yaml', {});
    expect(parsed.config.agents).toEqual([{ name: 'a', token: AGENT, principals: ['team:*', 'user:7'] }]);
    expect(parsed.summary.agents).toEqual([{ name: 'a', principals: ['team:*', 'user:7'] }]);
    expect(problemsOf(`agents:\n  - name: a\n    token: ${AGENT}\n    principals: ['']\n`, 'yaml')).toEqual(['agents[0].principals[0]: must not be empty']);
    expect(problemsOf(`agents:\n  - name: a\n    token: ${AGENT}\n    principals: user:7\n`, 'yaml')).toHaveLength(1);
  });

  it('lists every problem with its path, and never a secret', () => {
    const text = [
      'agents:',
      '  - name: a',
      '    token: env:UNSET',
      '  - name: a',
      `    token: ${ALICE}`,
      'approvers:',
      '  - id: alice',
      '    roles: []',
      `    token: ${ALICE}`,
      '    password: short',
      '  - id: bob',
      '    roles: []',
      'trustedProxy:',
      '  userHeader: x-user',
      '  sharedSecretHeader: x-secret',
    ].join('\n');
    const problems = problemsOf(text, 'yaml', { UNSET: '' });
    expect(problems).toEqual([
      'agents[1].name: duplicate agent name "a" (also agents[0].name)',
      'agents[0].token: environment variable UNSET is not set or empty',
      'approvers[0].password: must be at least 16 characters',
      'approvers[0].token: same token as agents[1].token; every identity needs its own',
      'trustedProxy: needs both sharedSecretHeader and sharedSecret, or neither',
    ]);
    for (const problem of problems) expect(problem).not.toContain(ALICE);
  });

  it('rejects unknown keys, missing fields, approvers without a way in, and duplicate keys', () => {
    expect(problemsOf('agents:\n  - name: a\n    token: x\n    tokne: y\nextra: 1\n', 'yaml')).toEqual(
      expect.arrayContaining(['agents[0].tokne: unknown key', 'extra: unknown key']),
    );
    expect(problemsOf('approvers: []\n', 'yaml')).toEqual(['agents: required']);
    expect(problemsOf('agents: []\n', 'yaml')).toEqual(['agents: at least one agent is required']);
    expect(problemsOf(`agents: [{ name: a, token: ${AGENT} }]\napprovers: [{ id: b, roles: [] }]\n`, 'yaml')).toEqual([
      'approvers[0]: needs a password or a token (or a trustedProxy that vouches for it)',
    ]);
    expect(problemsOf(`{"agents":[{"name":"a","token":"${AGENT}","token":"${ALICE}"}]}`, 'json')).toEqual([
      'agents[0].token: duplicate key (line 1, column 57)',
    ]);
    expect(problemsOf('{"agents":', 'json')[0]).toMatch(/^\(json\): /);
    expect(problemsOf('agents: [] \n---\nagents: []\n', 'yaml')[0]).toMatch(/^\(yaml\): expected exactly one YAML document, found 2/);
    expect(problemsOf(`agents: [{ name: a, token: "env:not a name" }]\n`, 'yaml')).toEqual([
      'agents[0].token: "env:not a name" is not a valid env reference (env:NAME, NAME of letters, digits and _)',
    ]);
  });

  it('lets approvers without secrets in when a trusted proxy vouches for them', () => {
    const text = `agents: [{ name: a, token: ${AGENT} }]\napprovers: [{ id: b, roles: [ops] }]\ntrustedProxy: { userHeader: x-user, sharedSecretHeader: x-secret, sharedSecret: env:P }\n`;
    const loaded = parseAuthFile(text, 'yaml', { P: 'proxy-secret-0123456789' });
    expect(loaded.config.trustedProxy).toEqual({ userHeader: 'x-user', sharedSecretHeader: 'x-secret', sharedSecret: 'proxy-secret-0123456789' });
    expect(loaded.summary.trustedProxy).toEqual({ userHeader: 'x-user', sharedSecret: true });
  });
});
