import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import { ICON_SVG } from '../assets/icon.ts';
import { PAGE_SCRIPT } from '../page-script.ts';
import { STYLESHEET } from '../styles.ts';

export function assetRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/assets/style.css', (c) => {
    c.set('cacheable', true);
    c.header('Cache-Control', 'public, max-age=300');
    c.header('Content-Type', 'text/css; charset=utf-8');
    return c.body(STYLESHEET);
  });
  routes.get('/assets/page.js', (c) => {
    c.set('cacheable', true);
    c.header('Cache-Control', 'public, max-age=300');
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    return c.body(PAGE_SCRIPT);
  });
  for (const path of ['/assets/icon.svg', '/favicon.ico']) {
    routes.get(path, (c) => {
      c.set('cacheable', true);
      c.header('Cache-Control', 'public, max-age=86400');
      c.header('Content-Type', 'image/svg+xml');
      return c.body(ICON_SVG);
    });
  }
  return routes;
}
