import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { addressKey, clientAddress } from './client-address.ts';

describe('addressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0db8:0000:0001:aaaa:bbbb:cccc:dddd', '2001:db8:0:1::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s → %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it('one /64 is one key, whatever the interface id', () => {
    expect(addressKey('2001:db8:1:2::dead')).toBe(addressKey('2001:db8:1:2:ffff:1:2:3'));
  });
});

describe('clientAddress', () => {
  const app = new Hono().get('/', (c) => c.text(clientAddress(c) ?? 'unknown'));

  it('reads the socket address from the Node bindings and ignores X-Forwarded-For', async () => {
    const res = await app.request('/', { headers: { 'x-forwarded-for': '198.51.100.1' } }, { incoming: { socket: { remoteAddress: '::ffff:203.0.113.7' } } });
    expect(await res.text()).toBe('203.0.113.7');
  });

  it('is undefined without Node bindings', async () => {
    expect(await (await app.request('/', { headers: { 'x-forwarded-for': '198.51.100.1' } })).text()).toBe('unknown');
  });
});
