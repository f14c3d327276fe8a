import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeCanonical } from '../canonical/serialize.ts';
import { inspectForDisplay, inspectString } from './inspect.ts';
import { displayJson, displaySegments, displayText, segmentsToText } from './segments.ts';

const kinds = (text: string) => inspectString(text).map((f) => f.kind);

describe('inspectString: what a reader cannot see is reported', () => {
  it.each([
    ['acct-\u202E4321\u202C', 'bidi_control'],
    ['user:\u202Enimda\u202C', 'bidi_control'],
    ['\u2067admin\u2069', 'bidi_control'],
    ['a\u200Fb', 'bidi_control'],
    ['ali\u200Bce', 'invisible'],
    ['ali\u2060ce', 'invisible'],
    ['ali\u00ADce', 'invisible'],
    ['ali\uFEFFce', 'invisible'],
    ['ali\u200Dce', 'invisible'],
    ['admin\u{E0041}', 'invisible'],
    ['a\u3164b', 'invisible'],
    ['a\uE000b', 'invisible'],
    ['a\uD800b', 'invisible'],
    ['a\u0007b', 'control'],
    ['a\u001B[2Jb', 'control'],
    ['a\u0085b', 'control'],
    ['acct\u00A01234', 'space'],
    ['a\u2028b', 'space'],
    ['Jose\u0301', 'not_nfc'],
    ['\u212B', 'not_nfc'],
    ['\u0430lice', 'confusable'],
    ['p\u0430yp\u0430l', 'confusable'],
    ['\u0430\u0441\u0435', 'confusable'],
    ['acct-\u0661234', 'confusable'],
  ])('%j → %s', (text, kind) => {
    expect(kinds(text)).toContain(kind);
  });

  it('says what it found, where, in ASCII only', () => {
    const [finding] = inspectString('acct-\u202E4321\u202C');
    expect(finding?.detail).toContain('U+202E RIGHT-TO-LEFT OVERRIDE at 5');
    expect(finding?.detail).toContain('U+202C POP DIRECTIONAL FORMATTING');
    const [confusable] = inspectString('\u0430lice');
    expect(confusable?.detail).toContain('U+0430 (Cyrillic) looks like Latin "a"');
    for (const f of [...inspectString('ali\u200Bce'), ...inspectString('Jose\u0301'), confusable!]) expect(f.detail).toMatch(/^[\x20-\x7e]*$/);
  });

  it.each([
    'acct-1234',
    'rent, June',
    'line one\nline two\ttabbed\r\n',
    'José',
    'Straße café naïve',
    'Москва',
    'Оплата за аренду: Moscow office',
    '東京',
    '',
  ])('leaves ordinary text alone: %j', (text) => {
    expect(inspectString(text)).toEqual([]);
  });
});

describe('compatibility forms and edge spaces read as plain ids', () => {
  it.each([
    ['\uFF46\uFF55\uFF4C\uFF4C', 'confusable'],
    ['user:\uFF46\uFF55\uFF4C\uFF4C', 'confusable'],
    ['\uFF4Dallory', 'confusable'],
    ['acct-\uFF11\uFF10\uFF10', 'confusable'],
    [' admin', 'edge_space'],
    ['user:42 ', 'edge_space'],
    ['  ', 'edge_space'],
  ])('%j → %s', (text, kind) => {
    expect(kinds(text)).toContain(kind);
  });

  it('flags a full-width or space-padded principal and id in a call, and shows them escaped', () => {
    const { findings } = inspectForDisplay({ principal: 'user:\uFF46\uFF55\uFF4C\uFF4C', callId: 'call-1 ', runId: ' run-1', arguments: { memo: 'rent, June' } });
    expect(findings.map((f) => [f.pointer, f.kind])).toEqual([
      ['/principal', 'confusable'],
      ['/callId', 'edge_space'],
      ['/runId', 'edge_space'],
    ]);
    expect(findings[0]?.detail).toContain('U+FF46 (Latin) looks like Latin "f" at 5');
    expect(findings[1]?.detail).toMatch(/^[\x20-\x7e]*$/);
    expect(displayText('user:\uFF46\uFF55\uFF4C\uFF4C')).toBe('user:\\uFF46\\uFF55\\uFF4C\\uFF4C');
    expect(displayText(' run-1 ')).toBe('\\u0020run-1\\u0020');
    expect(displayText('a b')).toBe('a b');
  });
});

describe('inspectForDisplay: keys, nesting and pointers', () => {
  it('finds nothing in a plain ASCII call', () => {
    expect(inspectForDisplay({ principal: 'user:42', toolName: 'transfer', arguments: { to: 'alice', amount: 500, tags: ['a', 'b'], n: null } })).toEqual({
      findings: [],
      truncated: false,
    });
  });

  it('points at nested values and array items', () => {
    const { findings } = inspectForDisplay({ arguments: { to: { acct: ['ok', 'x\u202Ey'] } }, principal: 'user:\u202Enimda\u202C' });
    expect(findings.map((f) => [f.pointer, f.where, f.kind])).toEqual([
      ['/arguments/to/acct/1', 'value', 'bidi_control'],
      ['/principal', 'value', 'bidi_control'],
    ]);
  });

  it('inspects object keys, pointing at the key (RFC 6901 escaped)', () => {
    const { findings } = inspectForDisplay({ 'ali\u200Bce': 1, 'a/b~\u0430dmin': 2 });
    expect(findings).toMatchObject([
      { pointer: '/ali\u200Bce', where: 'key', kind: 'invisible' },
      { pointer: '/a~1b~0\u0430dmin', where: 'key', kind: 'confusable' },
    ]);
  });

  it('caps the list for a payload made of nothing but findings', () => {
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, '\u200B']));
    const out = inspectForDisplay(many);
    expect(out.findings).toHaveLength(50);
    expect(out.truncated).toBe(true);
  });

  it('property: any string holding a bidi control or invisible character yields a finding for it', () => {
    const hidden = fc.constantFrom('\u202E', '\u202D', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C', '\u200B', '\u200C', '\u200D', '\u2060', '\u00AD', '\uFEFF', '\u180E', '\u{E0041}');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), hidden, fc.string(), (before, char, after) => {
        const { findings } = inspectForDisplay({ to: before + char + after });
        expect(findings.some((f) => f.pointer === '/to' && (f.kind === 'bidi_control' || f.kind === 'invisible'))).toBe(true);
        // ...and the rendering never shows the raw character.
        expect(segmentsToText(displayJson({ to: before + char + after }))).not.toContain(char);
      }),
    );
  });
});

describe('rendering: one set of segments for HTML, CLI and JSON views', () => {
  it('shows hidden characters as escapes, marked as such', () => {
    expect(displaySegments('acct-\u202E4321\u202C')).toEqual([
      { escaped: false, text: 'acct-' },
      { escaped: true, text: '\\u202E', reason: 'bidi_control', description: 'U+202E RIGHT-TO-LEFT OVERRIDE' },
      { escaped: false, text: '4321' },
      { escaped: true, text: '\\u202C', reason: 'bidi_control', description: 'U+202C POP DIRECTIONAL FORMATTING' },
    ]);
    expect(displayText('user:\u202Enimda\u202C')).toBe('user:\\u202Enimda\\u202C');
    expect(displayText('Jose\u0301')).toBe('Jose\\u0301');
    expect(displayText('\u0430lice')).toBe('\\u0430lice');
    expect(displayText('tag\u{E0041}')).toBe('tag\\u{E0041}');
    expect(displayText('a\u001B[2J')).toBe('a\\u001B[2J');
  });

  it('a typed backslash cannot pass for an escape once anything is escaped', () => {
    expect(displayText('\\u202E\u200B')).toBe('\\\\u202E\\u200B');
    // Nothing hidden: the text is shown exactly as it is.
    expect(displayText('C:\\temp')).toBe('C:\\temp');
  });

  it('renders plain JSON exactly as JSON.stringify does', () => {
    const value = { to: 'alice', amount: 500.5, memo: 'rent, "June"\n\\x', nested: { list: [1, true, null, {}, []], empty: '' } };
    expect(displayJson(value)).toEqual([{ escaped: false, text: JSON.stringify(value, null, 2) }]);
  });

  it('renders plain canonical JSON exactly as the canonical serializer does', () => {
    const value = { b: [1, 2.5, 'x"\\y\n'], a: { '10': true, '9': null, é: 'é' }, '': {} };
    expect(segmentsToText(displayJson(value, 'canonical'))).toBe(serializeCanonical(value));
  });

  it('escapes in JSON are valid JSON for the same value', () => {
    const value = { 'ali\u200Bce': 'acct-\u202E4321\u202C', name: 'Jose\u0301', who: '\u0430lice', bell: '\u0007', lone: '\uD800' };
    const text = segmentsToText(displayJson(value));
    expect(text).toContain('"ali\\u200Bce": "acct-\\u202E4321\\u202C"');
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('fragments of a text shown whole elsewhere', () => {
  it("a diff line's indentation is not an edge space; the same text as a whole value is flagged", () => {
    expect(displaySegments('    "bcc": {', { fragment: true })).toEqual([{ escaped: false, text: '    "bcc": {' }]);
    expect(displaySegments('    "bcc": {').some((s) => s.escaped && s.reason === 'edge_space')).toBe(true);
  });

  it('a fragment still escapes hidden and look-alike characters', () => {
    const segments = displaySegments(' pay \u202Eevil', { fragment: true });
    expect(segments.filter((s) => s.escaped).map((s) => s.escaped && s.reason)).toEqual(['bidi_control']);
  });
});
