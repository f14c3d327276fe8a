/** Each attack: arguments (and principal) that would read as something else, and what must show. */
export const HOSTILE_CALLS = [
  { name: 'bidi override in a value', args: { amount: 500, to: 'acct-\u202E4321\u202C' }, raw: '\u202E', escape: '\\u202E', pointer: '/arguments/to', kind: 'bidi_control' },
  { name: 'zero-width space', args: { amount: 500, to: 'ali\u200Bce' }, raw: '\u200B', escape: '\\u200B', pointer: '/arguments/to', kind: 'invisible' },
  { name: 'word joiner', args: { amount: 500, to: 'ali\u2060ce' }, raw: '\u2060', escape: '\\u2060', pointer: '/arguments/to', kind: 'invisible' },
  { name: 'soft hyphen', args: { amount: 500, to: 'ali\u00ADce' }, raw: '\u00AD', escape: '\\u00AD', pointer: '/arguments/to', kind: 'invisible' },
  { name: 'decomposed (not NFC)', args: { amount: 500, to: 'Jose\u0301' }, raw: '\u0301', escape: '\\u0301', pointer: '/arguments/to', kind: 'not_nfc' },
  { name: 'Cyrillic look-alike', args: { amount: 500, to: '\u0430lice' }, raw: '\u0430', escape: '\\u0430', pointer: '/arguments/to', kind: 'confusable' },
  { name: 'invisible character in a key', args: { amount: 500, to: 'alice', 'no\u200Bte': 'x' }, raw: '\u200B', escape: '\\u200B', pointer: '/arguments/no\u200Bte', kind: 'invisible' },
  // Bidi controls in ids (principal included) are refused at propose; a look-alike is accepted and must show.
  { name: 'Cyrillic look-alike in the principal', args: { amount: 500, to: 'alice' }, principal: 'user:\u0430dmin', raw: '\u0430', escape: '\\u0430', pointer: '/principal', kind: 'confusable' },
] as const;
