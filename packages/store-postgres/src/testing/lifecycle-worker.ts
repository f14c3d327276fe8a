// Worker process for the killed-process lifecycle histories (lifecycle-model.test.ts, npm run
// soak): runs the gate on the schema its first argument names ({"url","schema"} as JSON)
// until the parent SIGKILLs it. Run with --conditions=countersign-source.
import { runLifecycleWorker } from '@countersign/core/testing/children';
import { openPostgresStore } from '../open.ts';

const [location] = process.argv.slice(2);
if (location === undefined) throw new Error('usage: lifecycle-worker.ts {"url":…,"schema":…}');
const { url, schema } = JSON.parse(location) as { url: string; schema: string };
await runLifecycleWorker({
  open: async () => {
    const store = await openPostgresStore({ connectionString: url, schema, pool: { max: 4 } });
    return { ledger: store.ledger, audit: store.audit, definitions: store.definitions, close: () => store.close() };
  },
  destroy: async () => {},
});
