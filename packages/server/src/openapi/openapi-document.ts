import { ErrorResponse } from '@countersign/core/wire';
import { z } from 'zod';
import { API_ROUTES, type ApiRoute } from './api-routes.ts';
import { HealthResponse, ReadyResponse } from './response-schemas.ts';

type JsonObject = Record<string, unknown>;


/**
 * The OpenAPI 3.1 document of the HTTP API, built from the zod schemas the routes
 * validate with (`z.toJSONSchema`, JSON Schema 2020-12: the dialect OpenAPI 3.1 uses, so
 * no conversion library is needed). Strict request objects refuse unknown fields here
 * as the routes do.
 */
export function openApiDocument(version: string): JsonObject {
  const error = toSchema(ErrorResponse);
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of API_ROUTES) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operation(route, error);
  }
  paths['/healthz'] = { get: probe('Process is up (no store access)', HealthResponse, false) };
  paths['/readyz'] = { get: probe('Store is reachable (a ping with a short timeout); 503 with the reason when not', ReadyResponse, true) };
  paths['/metrics'] = {
    get: {
      summary: 'Prometheus metrics (text exposition format). Open unless the server was given a metrics token',
      security: [{}, { metricsBearer: [] }],
      responses: { '200': { description: 'metrics', content: { 'text/plain': { schema: { type: 'string' } } } }, '401': { description: 'a metrics token is configured and was not sent' } },
    },
  };
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Countersign approval service',
      version,
      description: 'Call-bound authorization for AI-agent tool calls: agents record calls and run them only with an approval bound to that exact call; approvers decide.',
    },
    paths,
    components: {
      schemas: { ErrorResponse: error },
      securitySchemes: {
        agentBearer: { type: 'http', scheme: 'bearer', description: "An agent runtime's token (auth file `agents[].token`)" },
        approverBearer: { type: 'http', scheme: 'bearer', description: "An approver's API token (auth file `approvers[].token`); the pages use a session cookie instead" },
        metricsBearer: { type: 'http', scheme: 'bearer', description: 'COUNTERSIGN_METRICS_TOKEN, when set' },
      },
    },
  };
}

function operation(route: ApiRoute, error: JsonObject): JsonObject {
  const parameters = [
    ...[...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 256 } })),
    ...Object.entries(route.query ?? {}).map(([name, q]) => ({ name, in: 'query', required: false, description: q.description, schema: toSchema(q.schema) })),
  ];
  const ok =
    route.eventStream === true
      ? { description: 'event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }
      : { description: 'OK', content: { 'application/json': { schema: route.response === undefined ? { type: 'object' } : toSchema(route.response) } } };
  return {
    summary: route.summary,
    operationId: `${route.method}${route.path.replace(/^\/api\/v1/, '').replace(/[{}]/g, '').replace(/[/.](\w)/g, (_, c: string) => c.toUpperCase())}`,
    security: route.auth === 'none' ? [] : [{ [`${route.auth}Bearer`]: [] }],
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(route.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: toSchema(route.body) } } } }),
    responses: { '200': ok, default: { description: 'An error: `error.code` says which', content: { 'application/json': { schema: error } } } },
  };
}

function probe(summary: string, schema: z.ZodType, can503: boolean): JsonObject {
  const body = { content: { 'application/json': { schema: toSchema(schema) } } };
  return {
    summary,
    security: [],
    responses: { '200': { description: 'OK', ...body }, ...(can503 ? { '503': { description: 'not ready', ...body } } : {}) },
  };
}

/**
 * As zod's input (what `safeParse` accepts), for responses too: a response object that
 * is not strict is one whose reader ignores further fields, which is what it documents.
 */
function toSchema(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as JsonObject;
  return rest;
}
