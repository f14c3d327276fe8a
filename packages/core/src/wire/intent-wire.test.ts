import { describe, expect, it } from 'vitest';
import { ProposalsBody } from './requests.ts';

const BODY = { runId: 'r', sessionId: 's', principal: 'p', toolCalls: [{ id: 'c', name: 't', arguments: {} }] };

describe('wire: a proposal carries the task for the intent stage', () => {
  it('accepts a task sentence or a task id, bounded', () => {
    expect(ProposalsBody.safeParse({ ...BODY, task: 'Read CI results' }).success).toBe(true);
    expect(ProposalsBody.safeParse({ ...BODY, taskId: 'task-1' }).success).toBe(true);
    expect(ProposalsBody.safeParse({ ...BODY, task: '' }).success).toBe(false);
    expect(ProposalsBody.safeParse({ ...BODY, task: 'x'.repeat(4001) }).success).toBe(false);
    expect(ProposalsBody.safeParse({ ...BODY, conversation: [] }).success).toBe(false);
  });

  it('carries the offers the user only accepted beside the task, bounded', () => {
    expect(ProposalsBody.safeParse({ ...BODY, task: 'Export the users table.', offered: ['Export the users table.'] }).success).toBe(true);
    expect(ProposalsBody.safeParse({ ...BODY, offered: [''] }).success).toBe(false);
    expect(ProposalsBody.safeParse({ ...BODY, offered: ['x'.repeat(4001)] }).success).toBe(false);
    expect(ProposalsBody.safeParse({ ...BODY, offered: Array.from({ length: 17 }, () => 'offer') }).success).toBe(false);
    expect(ProposalsBody.safeParse({ ...BODY, offered: 'Export the users table.' }).success).toBe(false);
  });
});
