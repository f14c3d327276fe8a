import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { apiClient } from './serve/testing/api-client.ts';
import { serveInProcess } from './testing/serve-in-process.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it('serve --json writes derived credentials to a 0600 file, prints its path, and never the values', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-creds-'));
  dirs.push(cwd);
  const server = await serveInProcess(['--json'], { cwd });
  try {
    const listening = server
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((line) => line.event === 'listening');
    const file = join(cwd, '.countersign', 'credentials.env');
    expect(listening).toMatchObject({ credentials: file, agent: { name: 'agent' }, approver: { id: 'approver' } });
    expect(listening.agent).not.toHaveProperty('token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const values = Object.fromEntries(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('COUNTERSIGN_'))
        .map((line) => line.split('=', 2) as [string, string]),
    );
    expect(Object.keys(values)).toEqual(['COUNTERSIGN_AGENT_TOKEN', 'COUNTERSIGN_APPROVER_PASSWORD', 'COUNTERSIGN_APPROVER_TOKEN']);
    // The file's token works, and no value from it appears in the output.
    expect((await apiClient(server.url, values.COUNTERSIGN_AGENT_TOKEN!).get('/api/v1/requests/none')).status).toBe(404);
    for (const value of Object.values(values)) expect(server.stdout() + server.stderr()).not.toContain(value);
  } finally {
    expect(await server.stop()).toBe(0);
  }
});

it('leaves out what the environment provides, and writes no file when it provides everything', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-creds-'));
  dirs.push(cwd);
  const env = { COUNTERSIGN_AGENT_TOKEN: 'agent-token-from-env-1234', COUNTERSIGN_APPROVER_TOKEN: 'approver-token-from-env-1234', COUNTERSIGN_APPROVER_PASSWORD: 'approver-password-from-env' };
  const server = await serveInProcess(['--json'], { cwd, env });
  try {
    expect(server.stdout()).toContain('"credentials":null');
  } finally {
    await server.stop();
  }
});
