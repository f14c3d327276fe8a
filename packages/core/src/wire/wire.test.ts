import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { AuthorizeRequest, CallStatus, CompleteOutcome, Completion, Grant, ProposeOutcome } from '../gate/index.ts';
import type { AuthorizeOutcome } from '../gate/common/port.ts';
import { type AuthorizeBody, AuthorizeOutcomeSchema, type CallStatusSchema, CompleteBody, type CompleteOutcomeSchema } from './index.ts';
import type { ProposeOutcomeSchema } from './outcomes.ts';
import type { CompletionSchema, GrantSchema } from './requests.ts';

const grant: Grant = {
  v: 1,
  proposalId: 'p-1',
  runId: 'run-1',
  sessionId: 's-1',
  principal: 'user:42',
  agent: 'runtime',
  callId: 'call-1',
  toolName: 'transfer',
  canonicalArgs: '{"amount":5}',
  argsDigest: 'ab'.repeat(32),
  authorizedAt: 1,
};

describe('wire schemas', () => {
  it('type as the core contract (a schema drifting from the types fails to compile)', () => {
    expectTypeOf<z.output<typeof GrantSchema>>().toExtend<Grant>();
    expectTypeOf<Grant>().toExtend<z.input<typeof GrantSchema>>();
    expectTypeOf<z.output<typeof CompletionSchema>>().toExtend<Completion>();
    expectTypeOf<z.output<typeof AuthorizeBody>>().toExtend<AuthorizeRequest>();
    expectTypeOf<z.output<typeof AuthorizeOutcomeSchema>>().toExtend<AuthorizeOutcome>();
    expectTypeOf<AuthorizeOutcome>().toExtend<z.input<typeof AuthorizeOutcomeSchema>>();
    expectTypeOf<z.output<typeof CompleteOutcomeSchema>>().toExtend<CompleteOutcome>();
    expectTypeOf<CompleteOutcome>().toExtend<z.input<typeof CompleteOutcomeSchema>>();
    expectTypeOf<z.output<typeof ProposeOutcomeSchema>>().toExtend<ProposeOutcome>();
    expectTypeOf<ProposeOutcome>().toExtend<z.input<typeof ProposeOutcomeSchema>>();
    expectTypeOf<z.output<typeof CallStatusSchema>>().toExtend<CallStatus>();
    expectTypeOf<CallStatus>().toExtend<z.input<typeof CallStatusSchema>>();
  });

  it('a grant is echoed back exactly: extra or altered fields are refused', () => {
    const completion = { status: 'succeeded', result: { ok: true } };
    expect(CompleteBody.safeParse({ grant, completion }).success).toBe(true);
    expect(CompleteBody.safeParse({ grant: { ...grant, admin: true }, completion }).success).toBe(false);
    expect(CompleteBody.safeParse({ grant: { ...grant, v: 2 }, completion }).success).toBe(false);
    expect(CompleteBody.safeParse({ grant, completion: { status: 'succeeded', result: 1, error: 'x' } }).success).toBe(false);
    expect(CompleteBody.safeParse({ grant, completion: { status: 'maybe' } }).success).toBe(false);
    expect(CompleteBody.safeParse({ grant, completion, extra: 1 }).success).toBe(false);
  });

  it('an outcome with an unknown status or reason does not parse', () => {
    expect(AuthorizeOutcomeSchema.safeParse({ status: 'authorized', grant }).success).toBe(true);
    expect(AuthorizeOutcomeSchema.safeParse({ status: 'executed', grant }).success).toBe(false);
    expect(AuthorizeOutcomeSchema.safeParse({ status: 'denied', reason: 'because', message: '' }).success).toBe(false);
    expect(AuthorizeOutcomeSchema.safeParse({ status: 'authorized' }).success).toBe(false);
  });
});
