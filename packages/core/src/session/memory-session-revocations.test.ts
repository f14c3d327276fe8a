import { runSessionRevocationConformance } from '../testing/session-conformance.ts';
import { MemorySessionRevocations } from './memory-session-revocations.ts';

runSessionRevocationConformance('memory', async () => ({ store: new MemorySessionRevocations() }));
