import { describeGateAttacks } from '@countersign/core/testing';
import { httpAttackAdapter } from './http-attack-adapter.test-helper.ts';

// The whole gate attack kit, through @countersign/client, over a real HTTP server.
describeGateAttacks('@countersign/client over HTTP (loopback server, memory store)', httpAttackAdapter);
