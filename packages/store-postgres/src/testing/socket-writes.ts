import { Socket } from 'node:net';
import { vi } from 'vitest';

/** Counts socket writes (each a syscall) from now on; restored by vi.restoreAllMocks(). */
export function countSocketWrites(): () => number {
  const proto = Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  const writev = vi.spyOn(proto, '_writev');
  const write = vi.spyOn(proto, '_write');
  return () => writev.mock.calls.length + write.mock.calls.length;
}
