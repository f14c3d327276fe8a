import { Gate } from '@countersign/core/gate';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { ATTACK_KIT_POLICY_YAML, attackKitTools } from '@countersign/core/testing';
import type { SqliteStore } from '../open.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

/**
 * The gate every process of the two-process tests builds over the shared file: same
 * policy, tools and key (so a grant or token from one process means the same in another).
 */
export function kitGate(store: SqliteStore): Gate {
  return new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger: store.ledger,
    audit: store.audit,
    policy: loadPolicy(ATTACK_KIT_POLICY_YAML, 'yaml'),
    keyring: new Keyring([hmacKey('kit-k1', Buffer.alloc(32, 0x6b))]),
    tools: attackKitTools(),
  });
}
