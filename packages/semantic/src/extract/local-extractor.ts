import type { ConversationMessage, TaskExtractor } from '../matcher/types.ts';
import { withoutPasted } from './pasted.ts';

export interface LocalExtractorOptions {
  /** Longest task returned, in characters; a longer goal is cut at a word boundary. */
  maxTaskChars?: number | undefined;
}

export const LOCAL_EXTRACTOR_ID = 'local-extractor@1';

// Phrases are general English conversation markers, not taken from any evaluation record.
const ACCEPT = /\b(do (?:that|it|this|so)|go ahead|go for it|yes|yeah|yep|sure|please do|sounds good|let'?s do (?:it|that|this)|proceed|make it so)\b/i;
/** A reply that is only "ok": after a question, it accepts (after a statement it only acknowledges, and no offer is pending). */
const BARE_OK = /^\s*(?:ok(?:ay)?|k)\s*[.!]*\s*$/i;
const DECLINE = /\b(later|not now|no|nope|don'?t|do not|skip|never ?mind|cancel|stop)\b/i;
/** Words a bare reply is made of: acceptances, refusals, acknowledgements and filler. */
const BARE_WORDS =
  /\b(?:do (?:that|it|this|so)|go ahead|go for it|yes|yeah|yep|sure|please|sounds good|let'?s do (?:it|that|this)|proceed|make it so|later|not now|no|nope|don'?t|do not|skip|never ?mind|cancel|stop|ok(?:ay)?|k|thanks?|thank you|thx|got it|noted|cool|great|nice|understood|right|fine|alright|perfect|good|maybe|for now|then|with|that'?s|it|that|this|all|now|just|so|and|but|i think)\b/gi;
const REFINE_START = /^(?:to clarify|just to clarify|to be clear|clarification|also|and|oh,? and|plus|but|only|note)\b/i;
const REPLACE = /\b(instead|new task|forget (?:that|it|the previous)|change of plans?|scratch that)\b/i;
const PROPOSAL = /\b(?:shall i|should i|do you want me to|would you like me to|want me to|i can|i could)\s+(.*)$/i;
const GENERIC_OBJECT = /^(?:go ahead|proceed|do (?:that|this|it|so)|start|continue|get started|take care of it)\b/i;

/** Fenced code blocks and indented code are material, never the task. */
function stripCode(text: string): string {
  return text
    .replace(/```[\s\S]*?(?:```|$)/g, ' ')
    .replace(/~~~[\s\S]*?(?:~~~|$)/g, ' ')
    .replace(/^(?: {4}|\t).*$/gm, ' ')
    .replace(/`([^`\n]*)`/g, '$1');
}

function clean(text: string): string {
  return withoutPasted(stripCode(text)).replace(/\s+/g, ' ').trim();
}

/** "ok, thanks", "yes, go ahead", "no, not now": a reply with no instruction of its own. */
function isBareReply(text: string): boolean {
  return !/[a-z0-9]/i.test(text.replace(BARE_WORDS, ' '));
}

function sentences(text: string): string[] {
  // A sentence may end inside a closing quote or bracket: `… "Q4 Beta." Shall I …`.
  return text.split(/(?<=[.!?]|[.!?]["'\u201d\u2019)\]])\s+/).filter((s) => s.trim() !== '');
}

/**
 * What an assistant message offers to do, if it offers anything: the object of "Shall I …",
 * "Would you like me to …", or, when the offer itself is generic ("Shall I go ahead?"), the
 * rest of the message, which then states the plan.
 */
export function proposalOf(assistant: string): string | undefined {
  return offerOf(assistant)?.text;
}

/**
 * The offer and its kind: `action` when the assistant names an action of its own ("Shall I also
 * export the users table?"), `plan` when it asks to go ahead with a plan it restated.
 */
function offerOf(assistant: string): { text: string; kind: 'action' | 'plan' } | undefined {
  const parts = sentences(clean(assistant));
  for (let i = parts.length - 1; i >= 0; i -= 1) {
    const match = PROPOSAL.exec(parts[i] ?? '');
    if (match === null) continue;
    const object = (match[1] ?? '').replace(/[?.!\s]+$/, '').trim();
    if (object !== '' && !GENERIC_OBJECT.test(object)) return { text: capitalize(object), kind: 'action' };
    const rest = parts.filter((_, j) => j !== i).join(' ').trim();
    return rest === '' ? undefined : { text: rest, kind: 'plan' };
  }
  return undefined;
}

/** Ends a sentence with a full stop unless it already ends with a mark. */
function endSentence(text: string): string {
  // "Translate this mail:" loses its colon once the mail is gone.
  const trimmed = text.replace(/[\s:;,]+$/, '');
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return space > max / 2 ? cut.slice(0, space) : cut;
}

/**
 * Bounds the goal to `max` characters. A long message is mostly material (a pasted document)
 * with the instruction before or after it, so the first sentence and as many of the last
 * sentences as fit are kept, never only the beginning.
 */
function sentence(text: string, max: number): string {
  const out = text.replace(/\s+/g, ' ').trim();
  if (out.length <= max) return endSentence(out);
  const parts = sentences(out);
  const first = cutAtWord(parts[0] ?? '', Math.floor(max / 2));
  const tail: string[] = [];
  let room = max - first.length - 1;
  for (let i = parts.length - 1; i > 0; i -= 1) {
    const part = parts[i] ?? '';
    if (part.length + 1 > room) {
      if (tail.length === 0) tail.unshift(cutAtWord(part, room - 1));
      break;
    }
    tail.unshift(part);
    room -= part.length + 1;
  }
  return endSentence([first, ...tail].filter((p) => p !== '').join(' '));
}

/**
 * A task extractor with no model: the user's current goal is their latest instruction;
 * "yes, do that" adds the assistant's offer just before it; a
 * bare "ok, thanks" changes nothing; a follow-up opening with "also", "to be clear" … is added to
 * the goal. Tool output and system text are never read, code is
 * dropped, and every word of the result comes from the user or from an offer the user accepted.
 */
export function createLocalExtractor(options: LocalExtractorOptions = {}): TaskExtractor {
  const maxTaskChars = options.maxTaskChars ?? 1_000;
  return {
    id: LOCAL_EXTRACTOR_ID,
    async extract(messages, signal) {
      if (signal?.aborted) return { ok: false, reason: 'aborted' };
      if (!Array.isArray(messages)) return { ok: false, reason: 'invalid_conversation' };
      let goal: string | undefined;
      let refinements: string[] = [];
      // Actions the assistant offered and the user only accepted: the assistant's words, kept apart.
      const offered: string[] = [];
      let lastAssistant: string | undefined;
      for (const message of messages as readonly ConversationMessage[]) {
        if (message === null || typeof message !== 'object' || typeof message.content !== 'string') {
          return { ok: false, reason: 'invalid_conversation' };
        }
        if (message.role === 'assistant') {
          lastAssistant = message.content;
          continue;
        }
        // Tool results and system text may carry injected instructions: never the task.
        if (message.role !== 'user') continue;
        const text = clean(message.content);
        const offer = lastAssistant;
        lastAssistant = undefined;
        if (text === '') continue;
        const bare = isBareReply(text);
        if (bare && (ACCEPT.test(text) || BARE_OK.test(text)) && !DECLINE.test(text) && offer !== undefined) {
          const proposal = offerOf(offer);
          if (proposal?.kind === 'action') {
            // "ok sure" to "Shall I also export the users table?": the assistant proposed that
            // action (possibly steered by a tool result); the user did not ask for it.
            offered.push(proposal.text);
            continue;
          }
          if (proposal !== undefined) {
            // A plan the assistant restated joins the user's goal (or starts it); it never silently replaces it.
            if (goal === undefined) goal = proposal.text;
            else refinements.push(proposal.text);
            continue;
          }
        }
        // "ok", "thanks", "maybe later": acknowledged, not asked for.
        if (bare) continue;
        if (goal !== undefined && !REPLACE.test(text) && REFINE_START.test(text)) {
          refinements.push(text);
          continue;
        }
        // Anything else is a new instruction: the latest one wins.
        goal = text;
        refinements = [];
      }
      const offers = offered.map((o) => sentence(o, maxTaskChars));
      if (goal === undefined) {
        // Only an accepted offer: it is the task, still marked as the assistant's.
        return offers.length === 0 ? { ok: false, reason: 'no_user_goal' } : { ok: true, task: sentence(offers.join(' '), maxTaskChars), offered: offers };
      }
      const joined = [goal, ...refinements].map(endSentence).join(' ');
      return { ok: true, task: sentence(joined, maxTaskChars), ...(offers.length > 0 ? { offered: offers } : {}) };
    },
  };
}
