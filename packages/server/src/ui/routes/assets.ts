import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import { STYLESHEET } from '../styles.ts';

export function assetRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/assets/style.css', (c) => {
    c.set('cacheable', true);
    c.header('Cache-Control', 'public, max-age=300');
    c.header('Content-Type', 'text/css; charset=utf-8');
    return c.body(STYLESHEET);
  });
  return routes;
}
