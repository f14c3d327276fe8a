import { expect, it } from 'vitest';
import { createLogger } from './logger.ts';

it('writes one JSON line per entry with an ISO time and a level name, and redacts secret-named fields', () => {
  let out = '';
  const logger = createLogger({ write: (chunk) => (out += chunk) }, 'info');
  logger.info({ event: 'x', token: 'tok-123', agent: { token: 'tok-456', name: 'a' }, authorization: 'Bearer tok-789', password: 'pw' });
  logger.debug({ event: 'hidden' });
  const lines = out.trim().split('\n');
  expect(lines).toHaveLength(1);
  const line = JSON.parse(lines[0]!);
  expect(line).toMatchObject({ level: 'info', event: 'x', token: '[redacted]', agent: { token: '[redacted]', name: 'a' }, authorization: '[redacted]', password: '[redacted]' });
  expect(new Date(line.time).toISOString()).toBe(line.time);
  expect(out).not.toMatch(/tok-\d|"pw"/);
  expect(line).not.toHaveProperty('pid');
});
