import { Hono } from 'hono';
import type { AppEnv } from '../app/env.ts';
import { packageVersion } from './package-version.ts';
import { jsonResponse } from '../http/security-headers.ts';
import { openApiDocument } from './openapi-document.ts';

/** GET /api/v1/openapi.json, unauthenticated (it describes the API, holds nothing of anyone's). Built on first request. */
export function openApiRoute(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let document: Record<string, unknown> | undefined;
  app.get('/openapi.json', (c) => {
    document ??= openApiDocument(packageVersion());
    return jsonResponse(c, document);
  });
  return app;
}
