import { MemoryAuditLog } from '@countersign/core/audit';
import { type DispatchRequest, Gate, type ToolRegistry } from '@countersign/core/gate';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { type ExpectedCall, hmacKey, Keyring, verifyApprovalToken } from '@countersign/core/token';
import type { ArgumentCase } from './arguments.ts';
import type { BenchCase } from './harness.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const TOOL = 'bulk_update';
const APPROVER = { id: 'approver-1' };
const CALL = { runId: 'run-bench', sessionId: 'session-bench', principal: 'user:bench' };

// One approve rule, so the policy step is a name match, not a JSON Schema check.
const POLICY = loadPolicy(
  `
version: 1
rules:
  - id: bench-approve
    tool: ${TOOL}
    verdict: approve
    approval:
      approvers: { approvers: [${APPROVER.id}] }
      ttlSeconds: 3600
`,
  'yaml',
);

// A tool with a pinned definition, as real tools have: dispatch re-checks its digest.
const TOOLS: ToolRegistry = {
  [TOOL]: {
    execute: () => ({ ok: true }),
    definition: {
      name: TOOL,
      description: 'Apply a batch of changes to a table',
      inputSchema: { type: 'object', properties: { table: { type: 'string' } } },
    },
  },
};

export const BENCH_KEYRING = new Keyring([hmacKey('k1', Buffer.alloc(32, 0x42))]);

/**
 * Wired as users wire it (`createInMemoryStore`, the examples): the ledger appends to the
 * gate's own audit log, so each step is one write that carries its records, not a ledger
 * write followed by separate appends.
 */
export function newGate(): Gate {
  const audit = new MemoryAuditLog();
  const ledger = new MemoryLedger({ audit });
  const gate = new Gate({ definitions: new MemoryDefinitionStore(), ledger, audit, policy: POLICY, keyring: BENCH_KEYRING, tools: TOOLS });
  LEDGERS.set(gate, ledger);
  return gate;
}

/** Each bench gate's ledger, for setup reads (the gate keeps its stores private). */
const LEDGERS = new WeakMap<Gate, MemoryLedger>();

interface Approved {
  request: DispatchRequest;
  expected: ExpectedCall;
}

/** Proposes `count` calls with `args` on `gate`, approves each and fetches its token. */
export async function approveCalls(gate: Gate, args: unknown, count: number, prefix = 'call'): Promise<Approved[]> {
  const approved: Approved[] = [];
  for (let i = 0; i < count; i++) {
    const callId = `${prefix}-${i}`;
    const proposed = await gate.propose({ ...CALL, callId, toolName: TOOL, arguments: args });
    if (proposed.status !== 'approval_required') throw new Error(`bench setup: propose gave ${proposed.status}`);
    const decided = await gate.approvals.decide(APPROVER, { requestId: proposed.requestId, decision: 'approve' });
    if (!decided.ok) throw new Error(`bench setup: decide gave ${decided.reason}`);
    const issued = await gate.approvals.token(proposed.requestId);
    if (!issued.ok) throw new Error(`bench setup: token gave ${issued.reason}`);
    const proposal = await LEDGERS.get(gate)?.findProposalByCall(CALL.runId, callId);
    if (proposal === undefined) throw new Error('bench setup: proposal vanished');
    approved.push({
      request: { ...CALL, proposalId: proposed.proposalId, callId, token: issued.token },
      expected: { ...CALL, callId, toolName: TOOL, definitionDigest: proposal.definitionDigest, argsDigest: proposal.argsDigest },
    });
  }
  return approved;
}

/** The honest hot path: each op dispatches one pre-approved call with its token. */
/**
 * A fresh gate with `ops` calls approved (untimed), and the loop that dispatches each once,
 * failing loudly on anything but `executed`: what the dispatch rows and profilers time.
 */
export async function dispatchLoop(args: unknown, ops: number, prefix = 'call'): Promise<() => Promise<void>> {
  const gate = newGate();
  const requests = (await approveCalls(gate, args, ops, prefix)).map((a) => a.request);
  return async () => {
    for (const request of requests) {
      const outcome = await gate.dispatch(request);
      if (outcome.status !== 'executed') throw new Error(`dispatch gave ${outcome.status}`);
    }
  };
}

export function gateDispatchCase(arg: ArgumentCase): BenchCase {
  return {
    name: `gate.dispatch, ${arg.label}`,
    note:
      'ledger lookup + definition digest + args re-hash + policy + token verify + atomic consume + ' +
      '2 audit appends (SHA-256 chain, each with its ledger write) + execute + result digest; MemoryLedger({ audit }), fresh gate per round',
    prepare: (ops) => dispatchLoop(arg.args, ops),
  };
}

/** Token verification alone against the ledger's call (no ledger, no audit, no args hashing). */
export async function verifyOnlyCase(arg: ArgumentCase): Promise<BenchCase> {
  const [approved] = await approveCalls(newGate(), arg.args, 1, 'verify');
  const { request, expected } = approved!;
  const token = request.token;
  return {
    name: `verifyApprovalToken, ${arg.label}`,
    note: 'decode (2× base64url + JSON.parse + claim checks) + cached HKDF run key + HMAC-SHA256 + timingSafeEqual + binding compares; args digest comes from the ledger, not re-hashed',
    prepare: (ops) => () => {
      for (let i = 0; i < ops; i++) {
        const verified = verifyApprovalToken(token, expected, { keyring: BENCH_KEYRING, now: Date.now() });
        if (!verified.ok) throw new Error(`verify gave ${verified.reason}`);
      }
    },
  };
}

/** A real approval token for a call with `arg`'s arguments (for the physical-limit loop's HMAC input). */
export async function sampleToken(arg: ArgumentCase): Promise<string> {
  const [approved] = await approveCalls(newGate(), arg.args, 1, 'limit');
  const token = approved!.request.token;
  if (token === undefined) throw new Error('bench setup: no token');
  return token;
}
