import { describe, expect, it } from 'vitest';
import { isSameOriginRequest } from './same-origin.ts';

const ours = 'http://127.0.0.1:8787';
const check = (headers: Record<string, string>) => isSameOriginRequest((name) => headers[name], ours);

describe('isSameOriginRequest', () => {
  it('accepts our origin, and Origin: null vouched for by Sec-Fetch-Site (what no-referrer pages send)', () => {
    expect(check({ origin: ours })).toBe(true);
    expect(check({ origin: ours, 'sec-fetch-site': 'same-origin' })).toBe(true);
    expect(check({ 'sec-fetch-site': 'same-origin' })).toBe(true);
    expect(check({ origin: 'null', 'sec-fetch-site': 'same-origin' })).toBe(true);
  });

  it('refuses foreign origins, other ports, cross-site and same-site fetches, and requests with no signal', () => {
    expect(check({ origin: 'http://evil.test' })).toBe(false);
    expect(check({ origin: 'http://127.0.0.1:9999' })).toBe(false);
    expect(check({ origin: 'https://127.0.0.1:8787' })).toBe(false);
    expect(check({ origin: ours, 'sec-fetch-site': 'cross-site' })).toBe(false);
    expect(check({ origin: 'null', 'sec-fetch-site': 'same-site' })).toBe(false);
    expect(check({ 'sec-fetch-site': 'none' })).toBe(false);
    expect(check({ origin: 'null' })).toBe(false);
    expect(check({})).toBe(false);
  });
});
