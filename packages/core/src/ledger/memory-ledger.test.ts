import { runLedgerConformance } from '../testing/ledger-conformance.ts';
import { MemoryLedger } from './memory-ledger.ts';

runLedgerConformance('memory', async () => ({ store: new MemoryLedger() }));
