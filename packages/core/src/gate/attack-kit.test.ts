import { describeGateAttacks, inProcessAttackAdapter } from '../testing/index.ts';

describeGateAttacks('in-process gate, memory store', async () => inProcessAttackAdapter());
