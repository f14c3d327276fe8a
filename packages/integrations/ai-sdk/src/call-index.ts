import { type CallIndex, memoryCallIndex } from '@countersign/core/integration';

export { type CallIndex, type IndexedCall, memoryCallIndex } from '@countersign/core/integration';

// One per integration package, as before the kit: an app using two integrations keeps two.
let processIndex: CallIndex | undefined;

/**
 * The index guards use when none is given: one per process, so a chat app that creates a
 * guard per request finds the calls of earlier requests. Pass your own for several
 * replicas (or to isolate tests).
 */
export function defaultCallIndex(): CallIndex {
  processIndex ??= memoryCallIndex();
  return processIndex;
}
