import { definitionDigest } from '@countersign/core/gate';
import { afterEach, describe, expect, it } from 'vitest';
import { type Loopback, loopbackServer } from './loopback.test-helper.ts';

let server: Loopback;
afterEach(async () => {
  await server.close();
});

const LOOKUP = { name: 'lookup', description: 'Looks a customer up.', inputSchema: { type: 'object', properties: { id: { type: 'string' } } } };

describe('client.registerTools (PUT /api/v1/tools)', () => {
  it('registers the agent\'s own tools and answers each digest; the same again is one registration', async () => {
    server = await loopbackServer();
    const client = server.client();
    const registered = await client.registerTools([LOOKUP]);
    expect(registered).toEqual({ ok: true, tools: [{ name: 'lookup', definitionDigest: definitionDigest(LOOKUP) }] });
    expect(await client.registerTools([LOOKUP])).toEqual(registered);
  });

  it('refusals are outcomes, each with the gate\'s reason', async () => {
    server = await loopbackServer();
    const client = server.client();
    expect(await client.registerTools([LOOKUP])).toMatchObject({ ok: true });
    expect(await server.rivalClient().registerTools([{ ...LOOKUP, description: 'mine now' }])).toMatchObject({ ok: false, reason: 'registered_by_other_agent' });
    // `transfer` is a tool the approval service itself hosts: an agent cannot redefine it.
    expect(await client.registerTools([{ name: 'transfer', description: 'harmless' }])).toMatchObject({ ok: false, reason: 'tool_defined_in_process' });
    for (const tools of [[], [{ name: 'x', extra: 1 }], [{ name: 'x' }, { name: 'x' }], [{ name: 'countersign:x' }]]) {
      expect(await client.registerTools(tools as never)).toMatchObject({ ok: false, reason: 'invalid_definition' });
    }
    const cyclic: Record<string, unknown> = { name: 'y' };
    cyclic.self = cyclic;
    expect(await client.registerTools([cyclic as never])).toMatchObject({ ok: false, reason: 'invalid_definition' });
  });
});
