import proto from '@temporalio/proto';

const { temporal } = proto;

/**
 * Workflow histories BUILT BY HAND from Temporal's event schema (temporal.api.history.v1),
 * not recorded from a server: none can run here. They hold what a server would record for
 * `approvalWorkflow`; replaying them runs the workflow code in the SDK's real sandbox and
 * checks it issues exactly these commands, in this order (determinism), offline.
 */

const START = Date.UTC(2026, 5, 1, 12);
const QUEUE = { name: 'countersign-test', kind: 'TASK_QUEUE_KIND_NORMAL' };

function payload(value: unknown) {
  return { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) };
}

/** A protobuf Duration from seconds (fractions kept as nanos). */
function duration(seconds: number) {
  return { seconds: Math.floor(seconds), nanos: Math.round((seconds % 1) * 1e9) };
}

const ATTRIBUTE_KEYS: Record<string, string> = {
  WORKFLOW_EXECUTION_STARTED: 'workflowExecutionStartedEventAttributes',
  WORKFLOW_TASK_SCHEDULED: 'workflowTaskScheduledEventAttributes',
  WORKFLOW_TASK_STARTED: 'workflowTaskStartedEventAttributes',
  WORKFLOW_TASK_COMPLETED: 'workflowTaskCompletedEventAttributes',
  ACTIVITY_TASK_SCHEDULED: 'activityTaskScheduledEventAttributes',
  ACTIVITY_TASK_STARTED: 'activityTaskStartedEventAttributes',
  ACTIVITY_TASK_COMPLETED: 'activityTaskCompletedEventAttributes',
  ACTIVITY_TASK_FAILED: 'activityTaskFailedEventAttributes',
  TIMER_STARTED: 'timerStartedEventAttributes',
  TIMER_CANCELED: 'timerCanceledEventAttributes',
  TIMER_FIRED: 'timerFiredEventAttributes',
  WORKFLOW_EXECUTION_SIGNALED: 'workflowExecutionSignaledEventAttributes',
  WORKFLOW_EXECUTION_COMPLETED: 'workflowExecutionCompletedEventAttributes',
};

/** Numbers events, stamps times and wraps attributes the way the JSON history export does. */
class HistoryBuilder {
  readonly events: Array<Record<string, unknown>> = [];
  #now = START;

  add(eventType: string, attributes: Record<string, unknown>, afterMs = 10): number {
    this.#now += afterMs;
    const eventId = this.events.length + 1;
    this.events.push({
      eventId,
      eventTime: { seconds: Math.floor(this.#now / 1000), nanos: (this.#now % 1000) * 1e6 },
      eventType: `EVENT_TYPE_${eventType}`,
      [ATTRIBUTE_KEYS[eventType]!]: attributes,
    });
    return eventId;
  }

  /** A workflow task: scheduled, started, completed. Returns the completed event id. */
  workflowTask(afterMs = 10): number {
    const scheduled = this.add('WORKFLOW_TASK_SCHEDULED', { taskQueue: QUEUE, startToCloseTimeout: duration(10), attempt: 1 }, afterMs);
    const started = this.add('WORKFLOW_TASK_STARTED', { scheduledEventId: scheduled, identity: 'hand-built', requestId: `wft-${scheduled}` });
    return this.add('WORKFLOW_TASK_COMPLETED', { scheduledEventId: scheduled, startedEventId: started, identity: 'hand-built' });
  }

  activity(activityId: string, activityType: string, input: unknown, result: unknown, completedTask: number): void {
    const scheduled = this.add('ACTIVITY_TASK_SCHEDULED', {
      activityId,
      activityType: { name: activityType },
      taskQueue: QUEUE,
      input: { payloads: [payload(input)] },
      startToCloseTimeout: duration(60),
      workflowTaskCompletedEventId: completedTask,
    });
    const started = this.add('ACTIVITY_TASK_STARTED', { scheduledEventId: scheduled, attempt: 1, identity: 'hand-built' });
    this.add('ACTIVITY_TASK_COMPLETED', { result: { payloads: [payload(result)] }, scheduledEventId: scheduled, startedEventId: started });
  }

  /** An activity the tool interceptor refused with a non-retryable ApplicationFailure of `failureType`. */
  refusedActivity(activityId: string, activityType: string, input: unknown, failureType: string, completedTask: number): void {
    this.failedActivity(activityId, activityType, input, { type: failureType, message: 'approval request req-1 is still pending' }, completedTask);
  }

  /**
   * An activity whose last attempt (`attempt`) failed with a non-retryable ApplicationFailure.
   * Earlier attempts leave no events of their own: the server records only the last attempt's
   * start, with the failure that ended the attempt before it (`lastFailure`).
   */
  failedActivity(activityId: string, activityType: string, input: unknown, failure: { type: string; message: string }, completedTask: number, attempt = 1, lastFailure?: Record<string, unknown>): void {
    const scheduled = this.add('ACTIVITY_TASK_SCHEDULED', {
      activityId,
      activityType: { name: activityType },
      taskQueue: QUEUE,
      input: { payloads: [payload(input)] },
      startToCloseTimeout: duration(60),
      workflowTaskCompletedEventId: completedTask,
    });
    const started = this.add('ACTIVITY_TASK_STARTED', { scheduledEventId: scheduled, attempt, identity: 'hand-built', ...(lastFailure === undefined ? {} : { lastFailure }) });
    this.add('ACTIVITY_TASK_FAILED', {
      failure: { message: failure.message, source: 'TypeScriptSDK', applicationFailureInfo: { type: failure.type, nonRetryable: true } },
      scheduledEventId: scheduled,
      startedEventId: started,
      retryState: 'RETRY_STATE_NON_RETRYABLE_FAILURE',
    });
  }

  get now(): number {
    return this.#now;
  }
}

const INPUT = { sessionId: 's-1', principal: 'user:42', call: { id: 'call-1', name: 'transfer', arguments: { amount: 500, to: 'alice' } } };

function started(b: HistoryBuilder) {
  b.add(
    'WORKFLOW_EXECUTION_STARTED',
    {
      workflowType: { name: 'approvalWorkflow' },
      taskQueue: QUEUE,
      input: { payloads: [payload(INPUT)] },
      workflowTaskTimeout: duration(10),
      originalExecutionRunId: 'run-hand-built',
      firstExecutionRunId: 'run-hand-built',
      identity: 'hand-built',
      attempt: 1,
    },
    0,
  );
}

/** Options to build a history a correct workflow must NOT replay (the test's negative control). */
export interface HistoryTampering {
  /** Record the signal under another name: the workflow's wait never ends, so it cannot issue the recorded commands. */
  signalName?: string;
}

/**
 * The start of the approval path: propose → approval required → timer until expiry → decision
 * signal (under `signalName`) → timer cancelled. Returns the workflow task that schedules the
 * guarded tool and the tool activity's envelope.
 */
function approvedUntilTool(b: HistoryBuilder, signalName = 'countersign.decision') {
  started(b);
  const first = b.workflowTask();
  const proposal = { proposalId: 'p-1', requestId: 'req-1', callId: 'call-1', argsDigest: 'd', status: 'approval_required' };
  const expiresAt = START + 600_000;
  b.activity('1', 'countersign.propose', { sessionId: 's-1', principal: 'user:42', toolCalls: [INPUT.call] }, [{ ...proposal, expiresAt }], first);
  const second = b.workflowTask();
  // The wait: the request's expiry minus the workflow clock (the activation's time = the task's start).
  const timer = b.add('TIMER_STARTED', { timerId: '1', startToFireTimeout: duration((expiresAt - (b.now - 10)) / 1000), workflowTaskCompletedEventId: second });
  b.add('WORKFLOW_EXECUTION_SIGNALED', { signalName, input: { payloads: [payload({ requestId: 'req-1', decision: 'approve' })] }, identity: 'notifier' }, 60_000);
  const third = b.workflowTask();
  b.add('TIMER_CANCELED', { timerId: '1', startedEventId: timer, workflowTaskCompletedEventId: third, identity: 'hand-built' });
  const envelope = { countersign: { v: 1, proposalId: 'p-1', requestId: 'req-1', callId: INPUT.call.id, sessionId: INPUT.sessionId, principal: INPUT.principal }, arguments: INPUT.call.arguments };
  return { toolTask: third, envelope };
}

/** The approval path: propose → approval required → timer until expiry → decision signal → timer cancelled → guarded tool → done. */
export function approvedCallHistory(tampering: HistoryTampering = {}) {
  const b = new HistoryBuilder();
  const { toolTask, envelope } = approvedUntilTool(b, tampering.signalName);
  b.activity('2', 'transfer', envelope, { transferred: 500 }, toolTask);
  const fourth = b.workflowTask();
  b.add('WORKFLOW_EXECUTION_COMPLETED', {
    result: { payloads: [payload({ status: 'executed', proposalId: 'p-1', result: { transferred: 500 } })] },
    workflowTaskCompletedEventId: fourth,
  });
  // Built with the SDK's own proto classes (the JSON loader trips over duplicated protobufjs copies in this install).
  return temporal.api.history.v1.History.fromObject({ events: b.events });
}

/** No decision arrives: the timer fires at the request's expiry and the workflow ends `expired`, running nothing. */
export function expiredCallHistory() {
  const b = new HistoryBuilder();
  started(b);
  const first = b.workflowTask();
  const expiresAt = START + 600_000;
  const proposal = { proposalId: 'p-1', requestId: 'req-1', callId: 'call-1', argsDigest: 'd', status: 'approval_required', expiresAt };
  b.activity('1', 'countersign.propose', { sessionId: 's-1', principal: 'user:42', toolCalls: [INPUT.call] }, [proposal], first);
  const second = b.workflowTask();
  const timer = b.add('TIMER_STARTED', { timerId: '1', startToFireTimeout: duration((expiresAt - (b.now - 10)) / 1000), workflowTaskCompletedEventId: second });
  b.add('TIMER_FIRED', { timerId: '1', startedEventId: timer }, expiresAt - b.now);
  const third = b.workflowTask();
  b.add('WORKFLOW_EXECUTION_COMPLETED', {
    result: { payloads: [payload({ status: 'expired', proposalId: 'p-1', requestId: 'req-1', expiresAt })] },
    workflowTaskCompletedEventId: third,
  });
  return temporal.api.history.v1.History.fromObject({ events: b.events });
}

/**
 * A forged early signal: the workflow wakes, the guarded tool activity is refused as still
 * pending (nothing spent), the workflow waits again (a second timer), then the real decision
 * arrives and the tool runs.
 */
export function forgedSignalHistory() {
  const b = new HistoryBuilder();
  started(b);
  const first = b.workflowTask();
  const expiresAt = START + 600_000;
  const proposal = { proposalId: 'p-1', requestId: 'req-1', callId: 'call-1', argsDigest: 'd', status: 'approval_required', expiresAt };
  b.activity('1', 'countersign.propose', { sessionId: 's-1', principal: 'user:42', toolCalls: [INPUT.call] }, [proposal], first);
  const envelope = { countersign: { v: 1, proposalId: 'p-1', requestId: 'req-1', callId: INPUT.call.id, sessionId: INPUT.sessionId, principal: INPUT.principal }, arguments: INPUT.call.arguments };
  const signal = { payloads: [payload({ requestId: 'req-1', decision: 'approve' })] };
  const second = b.workflowTask();
  const firstTimer = b.add('TIMER_STARTED', { timerId: '1', startToFireTimeout: duration((expiresAt - (b.now - 10)) / 1000), workflowTaskCompletedEventId: second });
  b.add('WORKFLOW_EXECUTION_SIGNALED', { signalName: 'countersign.decision', input: signal, identity: 'forger' }, 1_000);
  const third = b.workflowTask();
  b.add('TIMER_CANCELED', { timerId: '1', startedEventId: firstTimer, workflowTaskCompletedEventId: third, identity: 'hand-built' });
  b.refusedActivity('2', 'transfer', envelope, 'CountersignApprovalRequired', third);
  const fourth = b.workflowTask();
  const secondTimer = b.add('TIMER_STARTED', { timerId: '2', startToFireTimeout: duration((expiresAt - (b.now - 10)) / 1000), workflowTaskCompletedEventId: fourth });
  b.add('WORKFLOW_EXECUTION_SIGNALED', { signalName: 'countersign.decision', input: signal, identity: 'notifier' }, 60_000);
  const fifth = b.workflowTask();
  b.add('TIMER_CANCELED', { timerId: '2', startedEventId: secondTimer, workflowTaskCompletedEventId: fifth, identity: 'hand-built' });
  b.activity('3', 'transfer', envelope, { transferred: 500 }, fifth);
  const sixth = b.workflowTask();
  b.add('WORKFLOW_EXECUTION_COMPLETED', {
    result: { payloads: [payload({ status: 'executed', proposalId: 'p-1', result: { transferred: 500 } })] },
    workflowTaskCompletedEventId: sixth,
  });
  return temporal.api.history.v1.History.fromObject({ events: b.events });
}

/** Options to build a worker-death history a correct workflow must NOT replay (the test's negative control). */
export interface WorkerDeathTampering {
  /** After the refusal, the workflow scheduled the tool activity again (what a workflow that retried the call itself would record). */
  toolScheduledAgain?: boolean;
}

/**
 * The worker died while the tool ran: the approved call's tool activity timed out on attempt 1
 * (start-to-close; the worker never reported back), Temporal retried it, and attempt 2 failed
 * with `failure` (what the tool interceptor threw). The workflow ends `refused` with that
 * failure's type and schedules nothing more.
 */
export function workerDiedHistory(failure: { type: string; message: string }, tampering: WorkerDeathTampering = {}) {
  const b = new HistoryBuilder();
  const { toolTask, envelope } = approvedUntilTool(b);
  const lostAttempt = { message: 'activity StartToClose timeout', source: 'Server', timeoutFailureInfo: { timeoutType: 'TIMEOUT_TYPE_START_TO_CLOSE' } };
  b.failedActivity('2', 'transfer', envelope, failure, toolTask, 2, lostAttempt);
  const fourth = b.workflowTask();
  if (tampering.toolScheduledAgain === true) {
    b.activity('3', 'transfer', envelope, { transferred: 500 }, fourth);
    const fifth = b.workflowTask();
    b.add('WORKFLOW_EXECUTION_COMPLETED', {
      result: { payloads: [payload({ status: 'executed', proposalId: 'p-1', result: { transferred: 500 } })] },
      workflowTaskCompletedEventId: fifth,
    });
  } else {
    b.add('WORKFLOW_EXECUTION_COMPLETED', {
      result: { payloads: [payload({ status: 'refused', proposalId: 'p-1', failureType: failure.type, message: failure.message })] },
      workflowTaskCompletedEventId: fourth,
    });
  }
  return temporal.api.history.v1.History.fromObject({ events: b.events });
}
