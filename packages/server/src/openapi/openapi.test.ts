import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { makeServerFixture } from '../testing/server-fixture.ts';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: object }> }; responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  components: { schemas: Record<string, object> };
};

const f = makeServerFixture();
afterAll(() => f.close());

const doc = (await (await f.send('GET', '/api/v1/openapi.json', undefined)).json()) as Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
const compiled = new Map<object, ValidateFunction>();
const validator = (given: object) => {
  // Error responses point at the one ErrorResponse schema: compile that.
  const ref = (given as { $ref?: string }).$ref;
  const schema = ref?.startsWith('#/components/schemas/') ? doc.components.schemas[ref.slice('#/components/schemas/'.length)]! : given;
  let fn = compiled.get(schema);
  if (fn === undefined) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
};

/** The documented operation for a concrete path (`/api/v1/requests/abc` → `/api/v1/requests/{id}`). */
function operationFor(method: string, path: string) {
  const bare = path.split('?')[0]!;
  const template = Object.keys(doc.paths).find((t) => new RegExp(`^${t.replace(/\{\w+\}/g, '[^/]+')}$`).test(bare));
  const op = template === undefined ? undefined : doc.paths[template]![method.toLowerCase()];
  if (op === undefined) throw new Error(`${method} ${path} is not documented`);
  return op;
}

const checked = new Set<string>();

/** Sends a real request, checks its body against the documented request schema and the answer against the documented response. */
// biome-ignore lint/suspicious/noExplicitAny: the flow reads answer fields one by one; the schemas are what is checked.
async function call(who: 'agent' | 'fiona', method: string, path: string, body?: unknown): Promise<any> {
  const op = operationFor(method, path);
  if (body !== undefined) {
    const schema = op.requestBody?.content['application/json']?.schema;
    expect(schema, `${method} ${path} documents its body`).toBeDefined();
    const valid = validator(schema!);
    expect(valid(body), `${method} ${path} request: ${ajv.errorsText(valid.errors)}`).toBe(true);
  }
  const res = await f[who](method, path, body);
  const json = await res.json();
  const schema = res.status === 200 ? op.responses['200']?.content?.['application/json']?.schema : doc.components.schemas.ErrorResponse;
  const valid = validator(schema!);
  expect(valid(json), `${method} ${path} → ${res.status}: ${ajv.errorsText(valid.errors)}\n${JSON.stringify(json)}`).toBe(true);
  checked.add(`${method.toLowerCase()} ${path}`);
  return json;
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and documents exactly the routes the app registers under /api, plus the probes', () => {
    expect(doc.openapi).toBe('3.1.0');
    const registered = new Set(
      f.app.routes
        .filter((r) => r.method !== 'ALL' && (r.path.startsWith('/api/') || ['/healthz', '/readyz', '/metrics'].includes(r.path)))
        .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`)));
    expect([...documented].sort()).toEqual([...registered].sort());
  });

  it('every JSON schema in it compiles as JSON Schema 2020-12', () => {
    // validator() throws on a schema that does not compile; the count shows schemas were found at all.
    let checked = 0;
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        for (const media of Object.values(op.requestBody?.content ?? {})) checked += validator(media.schema) ? 1 : 0;
        for (const response of Object.values(op.responses)) for (const media of Object.values(response.content ?? {})) checked += validator(media.schema) ? 1 : 0;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('real requests and answers of a whole flow validate against it', async () => {
    const proposals = await call('agent', 'POST', '/api/v1/proposals', f.proposalBody([
      { id: 'small', name: 'transfer', arguments: { amount: 5, to: 'bob' } },
      { id: 'big', name: 'transfer', arguments: { amount: 500, to: 'alice' } },
    ]));
    const [small, big] = proposals.outcomes;
    expect(big.status).toBe('approval_required');
    await call('agent', 'GET', `/api/v1/requests/${big.requestId}`);
    await call('fiona', 'GET', '/api/v1/approvals');
    await call('fiona', 'GET', '/api/v1/approvals?status=pending&limit=5');
    await call('fiona', 'GET', `/api/v1/approvals/${big.requestId}`);
    await call('fiona', 'POST', '/api/v1/decisions', { requestId: big.requestId, decision: 'approve', reason: 'ok' });
    const { token } = await call('agent', 'GET', `/api/v1/requests/${big.requestId}/token`);
    const dispatched = await call('agent', 'POST', '/api/v1/dispatch', await f.dispatchBody('big', token));
    expect(dispatched.status).toBe('executed');
    // A replay: the refusal is documented too.
    await call('agent', 'POST', '/api/v1/dispatch', await f.dispatchBody('big', token));
    const authorized = await call('agent', 'POST', '/api/v1/authorize', { proposalId: small.proposalId, callId: 'small', runId: 'run-1' });
    expect(authorized.status).toBe('authorized');
    await call('agent', 'POST', '/api/v1/complete', { grant: authorized.grant, completion: { status: 'succeeded', result: { sent: true } } });
    await call('agent', 'GET', `/api/v1/calls/${small.proposalId}`);
    const relayed = await call('agent', 'POST', '/api/v1/runs/run-1/relayed', { toolMessages: [{ callId: 'small', content: JSON.stringify({ sent: true }) }] });
    expect(relayed).toHaveProperty('ok');
    await call('agent', 'POST', '/api/v1/tools/admission', { toolName: 'transfer' });
    const registered = await call('agent', 'PUT', '/api/v1/tools', { tools: [{ name: 'lookup_order', description: 'Look up an order', inputSchema: { type: 'object', properties: { id: { type: 'string' } } } }] });
    expect(registered.tools).toEqual([{ name: 'lookup_order', definitionDigest: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    await call('fiona', 'GET', '/api/v1/audit?limit=5');
    // Errors answer with the documented ErrorResponse.
    await call('fiona', 'POST', '/api/v1/decisions', { requestId: big.requestId, decision: 'deny', reason: 'late' });
    await call('agent', 'GET', '/api/v1/requests/no-such-request');
    expect(checked.size).toBeGreaterThanOrEqual(15);
  });

  it('refuses what the routes refuse: a documented strict body rejects an unknown field, like the route', async () => {
    const body = { requestId: 'x', decision: 'approve', approver: 'fiona' };
    const schema = operationFor('POST', '/api/v1/decisions').requestBody!.content['application/json']!.schema;
    expect(validator(schema)(body)).toBe(false);
    const res = await f.fiona('POST', '/api/v1/decisions', body);
    expect(res.status).toBe(400);
  });

  it('names every operation, lists its error responses with the ErrorResponse schema, and has a server', () => {
    const full = doc as Doc & { servers?: Array<{ url: string }> };
    expect(full.servers?.length).toBeGreaterThan(0);
    const ids: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops) as Array<[string, Doc['paths'][string][string] & { operationId?: string; security?: unknown[] }]>) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-zA-Z][a-zA-Z0-9]*$/);
        ids.push(op.operationId!);
        const errors = Object.keys(op.responses).filter((code) => code !== '200');
        for (const code of errors) {
          const schema = op.responses[code]?.content?.['application/json']?.schema;
          if (path === '/readyz') continue;
          expect(schema, `${method} ${path} ${code}`).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
        }
        if (!path.startsWith('/api/v1/') || (op.security ?? []).length === 0) continue;
        expect(errors, `${method} ${path}`).toEqual(expect.arrayContaining(['401', '403', '429', '503', 'default']));
        if (path.includes('{')) expect(errors, `${method} ${path}`).toContain('404');
        if (op.requestBody !== undefined) expect(errors, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '413', '415']));
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});
