import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { CompletionRelay } from './completions.ts';
import type { ToolNaming } from './names.ts';
import { PromptRelay } from './prompts.ts';
import { ResourceRouter } from './resources.ts';
import type { Upstream } from './upstream.ts';

/**
 * What the gateway serves beside tools, and the capabilities it answers `initialize` with:
 * each one only when some upstream declared it (a client sees what it would see directly).
 * Known once the upstreams were first connected (an upstream down then counts as having
 * nothing, as its tools are hidden).
 */
export interface Served {
  readonly capabilities: ServerCapabilities;
  readonly prompts: PromptRelay;
  readonly resources: ResourceRouter;
  readonly completions: CompletionRelay;
}

export function servedBy(upstreams: readonly Upstream[], naming: ToolNaming): Served {
  const prompts = new PromptRelay(upstreams, naming);
  const resources = new ResourceRouter(upstreams);
  const completions = new CompletionRelay(upstreams, naming, resources);
  const declared = upstreams.map((u) => u.capabilities);
  const subscribe = declared.some((c) => c.resources?.subscribe === true);
  const logging = declared.some((c) => c.logging !== undefined);
  const capabilities: ServerCapabilities = {
    tools: { listChanged: true },
    ...(prompts.available ? { prompts: { listChanged: true } } : {}),
    ...(resources.available ? { resources: { listChanged: true, ...(subscribe ? { subscribe: true } : {}) } } : {}),
    ...(completions.available ? { completions: {} } : {}),
    ...(logging ? { logging: {} } : {}),
  };
  return { capabilities, prompts, resources, completions };
}

/**
 * Every capability the gateway can serve: what its SDK `Server` is made with, so each
 * handler can be registered before the upstreams are known (the SDK refuses a handler for a
 * capability not declared). The client is told `Served.capabilities`, and each handler
 * refuses what is not served.
 */
export const SERVABLE: ServerCapabilities = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  completions: {},
  logging: {},
};
