import type { PoolClient } from 'pg';

/** The socket under a pg client; `connection.stream` is not in pg's typings, so it is looked up defensively. */
interface Corkable {
  cork(): void;
  uncork(): void;
}

const corked = new WeakSet<Corkable>();

/**
 * Holds back the client's socket writes until the current tick's promise jobs have run,
 * then sends them in one write. pg writes each statement as soon as it is queued (one
 * syscall, and one wake-up of the server, per statement); a transaction sends BEGIN, the
 * chain lock and several writes' statements back to back on its pipelined connection,
 * and the audit insert with COMMIT behind it, so coalescing them halves the writes and
 * the server's wake-ups per step. Order and content are unchanged: only when the bytes
 * leave differs, by at most the rest of this tick. A client without a corkable socket
 * (another pg version) is left as it is.
 */
export function coalesceWrites(client: PoolClient): void {
  const stream = (client as unknown as { connection?: { stream?: Partial<Corkable> } }).connection?.stream;
  if (stream === undefined || typeof stream.cork !== 'function' || typeof stream.uncork !== 'function') return;
  const socket = stream as Corkable;
  if (corked.has(socket)) return;
  corked.add(socket);
  socket.cork();
  // A nextTick queued now runs once the promise jobs queued before it have drained: every
  // statement this tick's continuations send is in the one write.
  process.nextTick(() => {
    corked.delete(socket);
    socket.uncork();
  });
}
