/**
 * Keys refused anywhere in arguments. Tools commonly merge arguments into objects
 * (`Object.assign`, spread, lodash merge); these three names are the
 * prototype-pollution vectors, and no legitimate tool schema needs them.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
