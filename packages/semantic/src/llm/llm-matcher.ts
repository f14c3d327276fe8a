import { z } from 'zod';
import type { MatchInput, MatchResult, TaskToolMatcher } from '../matcher/types.ts';
import { type ChatEndpoint, checkEndpoint, completeJson } from './chat-client.ts';
import { matchPrompt } from './prompts.ts';

export interface LlmMatcherOptions extends ChatEndpoint {
  /** Below this confidence a verdict counts as `uncertain` (the gate denies or asks a person). Default 0.5. */
  minConfidence?: number | undefined;
}

const MatchReply = z.strictObject({
  serves_task: z.boolean(),
  confidence: z.number().min(0).max(1),
  reason: z.string().max(2000),
});

const MATCH_REPLY_SCHEMA = {
  type: 'object',
  properties: {
    serves_task: { type: 'boolean' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    reason: { type: 'string' },
  },
  required: ['serves_task', 'confidence', 'reason'],
  additionalProperties: false,
};

/**
 * A task-to-tool matcher over any OpenAI-compatible chat endpoint (ideally a model of
 * another family than the agent's). Fail closed: a timeout, an HTTP error, or a reply
 * that is not exactly the expected JSON is `uncertain`, never `match`. `score` is the
 * model's probability that the tool serves the task.
 */
export function createLlmMatcher(options: LlmMatcherOptions): TaskToolMatcher {
  checkEndpoint(options);
  const minConfidence = options.minConfidence ?? 0.5;
  const id = `llm:${options.model}`;
  return {
    id,
    async match(input: MatchInput, signal?: AbortSignal): Promise<MatchResult> {
      const reply = await completeJson(options, matchPrompt(input), { name: 'task_tool_match', schema: MatchReply, jsonSchema: MATCH_REPLY_SCHEMA }, signal);
      if (!reply.ok) return { decision: 'uncertain', score: 0, matcher: id, detail: { failure: reply.reason } };
      const { serves_task, confidence } = reply.value;
      const score = serves_task ? confidence : 1 - confidence;
      if (confidence < minConfidence) return { decision: 'uncertain', score, matcher: id, detail: { failure: 'low_confidence' } };
      return { decision: serves_task ? 'match' : 'mismatch', score, matcher: id };
    },
  };
}
