import { describeStoreTarget, type StoreTarget } from './serve/store-target.ts';
import { type OpenedStore, openStore } from './serve/open-store.ts';
import { CliError } from './cli-error.ts';

/** Opens a store, turning any failure into one readable CliError. */
export async function openStoreForCli(target: StoreTarget, opts: { readOnly?: boolean } = {}): Promise<OpenedStore> {
  try {
    return await openStore(target, opts);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError('io', `cannot open ${describeStoreTarget(target)}: ${message}`, { cause: error });
  }
}

/** Runs `work` with an open store and always closes it. */
export async function withStore<T>(
  target: StoreTarget,
  work: (store: OpenedStore) => Promise<T>,
  opts: { readOnly?: boolean } = {},
): Promise<T> {
  const store = await openStoreForCli(target, opts);
  try {
    return await work(store);
  } finally {
    await store.close().catch(() => undefined);
  }
}
