import { afterEach } from 'vitest';

/**
 * Registers, in the calling describe block, an afterEach that runs every cleanup deferred
 * during the test, in order; returns `defer`, which queues one. Temporary databases are
 * closed and removed even when a test fails half-way.
 */
export function cleanupAfterEach(): (cleanup: () => Promise<void> | void) => void {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  return (cleanup) => {
    cleanups.push(cleanup);
  };
}
