import type { GateDeps } from './config.ts';

// A gate's dependencies for core's own white-box tests (sealed definitions, the propose
// fast path). Exported from no entry point: outside core a gate is its public methods.
const DEPS = new WeakMap<object, GateDeps>();

export function rememberDeps(gate: object, deps: GateDeps): void {
  DEPS.set(gate, deps);
}

export function depsOf(gate: object): GateDeps {
  const deps = DEPS.get(gate);
  if (deps === undefined) throw new TypeError('not a gate');
  return deps;
}
