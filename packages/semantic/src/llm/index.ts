export { type ChatEndpoint, type ChatFailure, type ChatMessage, type ChatResult, completeJson } from './chat-client.ts';
export { createLlmExtractor, type LlmExtractorOptions } from './llm-extractor.ts';
export { createLlmMatcher, type LlmMatcherOptions } from './llm-matcher.ts';
export { extractPrompt, matchPrompt } from './prompts.ts';
