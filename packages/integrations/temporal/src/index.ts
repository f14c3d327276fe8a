/**
 * `@countersign/temporal`: the worker side (activities, the tool interceptor, the decision
 * notifier). Workflow code imports `@countersign/temporal/workflow` instead.
 */
export { createCountersignActivities } from './activities.ts';
export { clientSignalSender, decisionSignalOf, notifyTemporalOnDecision, type SignalSender } from './notifier.ts';
export { CountersignToolInterceptor, countersignActivityInterceptors, type ToolInterceptorOptions } from './tool-interceptor.ts';
export * from './workflow/contract.ts';
