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
    paths[route.path]![route.method] = operation(route);
  }
  paths['/healthz'] = { get: probe('getHealthz', 'Process is up (no store access)', HealthResponse, false) };
  paths['/readyz'] = { get: probe('getReadyz', 'Store is reachable (a ping with a short timeout); 503 with the reason when not', ReadyResponse, true) };
  paths['/metrics'] = {
    get: {
      operationId: 'getMetrics',
      summary: 'Prometheus metrics (text exposition format). Open unless the server was given a metrics token',
      security: [{}, { metricsBearer: [] }],
      responses: { '200': { description: 'metrics', content: { 'text/plain': { schema: { type: 'string' } } } }, '401': errorResponse('a metrics token is configured and was not sent') },
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
    // Relative: the service that served this document (behind a proxy, its public origin).
    servers: [{ url: '/', description: 'this service' }],
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

function operation(route: ApiRoute): JsonObject {
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
    // `post /api/v1/passkey-challenge` → `postPasskeyChallenge`: letters and digits only, as code generators want.
    operationId: `${route.method}${route.path.replace(/^\/api\/v1/, '').replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase())}`,
    security: route.auth === 'none' ? [] : [{ [`${route.auth}Bearer`]: [] }],
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(route.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: toSchema(route.body) } } } }),
    responses: { '200': ok, ...errorResponses(route), default: errorResponse('Any other error: `error.code` says which') },
  };
}

const ERROR_REF = { $ref: '#/components/schemas/ErrorResponse' };

function errorResponse(description: string): JsonObject {
  return { description, content: { 'application/json': { schema: ERROR_REF } } };
}

/** The errors a route can answer with, by what it has (a body, path ids, authentication), each with its codes. */
function errorResponses(route: ApiRoute): Record<string, JsonObject> {
  const authenticated = route.auth !== 'none';
  const writes = route.method !== 'get';
  const out: Record<string, JsonObject> = {};
  if (route.body !== undefined || route.query !== undefined) {
    out['400'] = errorResponse('`malformed_json`, `unknown_field`, `invalid_request`, `invalid_arguments`, `nesting_too_deep`, `invalid_json_value`: the request is not what this operation accepts');
  }
  if (authenticated) {
    out['401'] = errorResponse('`unauthenticated`: no valid bearer token');
    out['403'] = errorResponse('`forbidden`: the token is not of the kind this operation is for (agent or approver), or the policy refuses (`edit_denied_by_policy`, passkey codes)');
  }
  if (route.path.includes('{')) out['404'] = errorResponse('`not_found`: no such item, or not one this caller may see (the two read alike)');
  if (authenticated && writes) {
    out['409'] = errorResponse('`expired`, `already_decided`, `duplicate_approver`, `not_approved`, `not_revocable`, `no_approval`, `already_consumed`, `registered_by_other_agent`, `tool_defined_in_process`: the state does not allow it');
  }
  if (route.body !== undefined) {
    out['413'] = errorResponse('`payload_too_large`: the body is over the server\'s limit');
    out['415'] = errorResponse('`unsupported_media_type`: the body is not `application/json`');
  }
  if (authenticated) out['429'] = errorResponse('`too_many_attempts`: too many invalid bearer tokens from this client; see `Retry-After`');
  if (authenticated) out['503'] = errorResponse('`store_unavailable`: the store cannot be reached; retry');
  return out;
}

function probe(operationId: string, summary: string, schema: z.ZodType, can503: boolean): JsonObject {
  const body = { content: { 'application/json': { schema: toSchema(schema) } } };
  return {
    operationId,
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
