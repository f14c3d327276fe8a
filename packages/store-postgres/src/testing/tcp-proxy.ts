import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A TCP proxy for outage tests, placed between a pool and PostgreSQL.
 * - `cut('refuse')`: drops every connection and stops listening (ECONNREFUSED);
 * - `cut('stall')`: a partition: open connections stop moving bytes, new ones are
 *   accepted but never forwarded (so only timeouts can end the wait);
 * - `restore()`: listens/forwards again; stalled connections resume where they were;
 * - `dropNextCommitReply()`: the next write a client sends that holds a COMMIT reaches
 *   PostgreSQL, but nothing comes back: the reply is dropped and, once the database has
 *   had time to commit, the connection is cut. The commit happened; the client only
 *   sees its connection fail. Other connections are untouched.
 */
export interface TcpProxy {
  readonly port: number;
  cut(mode: 'refuse' | 'stall'): Promise<void>;
  /** Resolves once a COMMIT's reply was dropped and its connection cut. */
  dropNextCommitReply(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'up' | 'refuse' | 'stall' = 'up';
  const pairs = new Set<Pair>();
  const held = new Set<Socket>();
  let commitDrop: (() => void) | undefined;

  const server: Server = createServer((client) => {
    client.on('error', () => {});
    if (mode === 'stall') {
      held.add(client);
      client.on('close', () => held.delete(client));
      return;
    }
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => {});
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('close', drop);
    upstream.on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      // A simple-query or Parse message carrying COMMIT; the pipe forwards the chunk itself.
      if (commitDrop === undefined || !chunk.includes('COMMIT')) return;
      const dropped = commitDrop;
      commitDrop = undefined;
      upstream.unpipe(client);
      // Long enough for the server to commit what it was sent; then the client's side fails.
      setTimeout(() => {
        drop();
        dropped();
      }, 200);
    });
  });
  await listen(server, 0);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  const port = address.port;

  return {
    port,
    async cut(next) {
      mode = next;
      if (next === 'refuse') {
        for (const { client, upstream } of pairs) {
          client.destroy();
          upstream.destroy();
        }
        pairs.clear();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      } else {
        for (const { client, upstream } of pairs) {
          client.unpipe(upstream);
          upstream.unpipe(client);
          client.pause();
          upstream.pause();
        }
      }
    },
    dropNextCommitReply() {
      return new Promise<void>((resolve) => {
        commitDrop = resolve;
      });
    },
    async restore() {
      const was = mode;
      mode = 'up';
      if (was === 'refuse') await listen(server, port);
      for (const socket of held) socket.destroy();
      held.clear();
      for (const { client, upstream } of pairs) {
        client.pipe(upstream);
        upstream.pipe(client);
      }
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      for (const socket of held) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
