import { describeGateAttacks, inProcessAttackAdapter } from '../testing/index.ts';
import { generateEd25519Key, Keyring } from '../token/keyring.ts';

describeGateAttacks('in-process gate, memory store', async () => inProcessAttackAdapter());
// The stores run the kit with HMAC keys; an Ed25519 key adds the key-confusion attack.
describeGateAttacks('in-process gate, memory store, Ed25519 key', async () => inProcessAttackAdapter({ keyring: new Keyring([generateEd25519Key('kit-ed1')]) }));
