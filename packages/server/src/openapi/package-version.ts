import { readFileSync } from 'node:fs';

/**
 * The server package's version. Read at runtime because package.json sits outside
 * the compiled tree; src/cli and dist/cli are both two levels below it.
 */
export function packageVersion(): string {
  try {
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    const version: unknown = JSON.parse(text).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}
