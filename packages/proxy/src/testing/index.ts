export { runAgent, type Misbehavior, type RunOutcome, type RuntimeOptions } from './agent-runtime.ts';
export { ciServer, FAILING_RUNS } from './ci-server.ts';
export { fakeGate } from './fake-gate.ts';
export { type ReceivedRequest, type ScriptedCall, type ScriptedModel, type ScriptedTurn, startScriptedModel } from './scripted-model.ts';
export { type ScriptedAnswer, type ScriptedUpstream, sseEvent, startScriptedUpstream } from './scripted-upstream.ts';
export { type MessagesTurn, type ScriptedMessages, type ScriptedToolUse, startScriptedMessages } from './scripted-messages.ts';
