export type { EscapeReason } from './analyze-string.ts';
export { type DisplayFinding, type DisplayFindingKind, type DisplayInspection, inspectForDisplay } from './inspect.ts';
export { type DisplaySegment, displayJson, displaySegments, displayText, segmentsToText } from './segments.ts';
