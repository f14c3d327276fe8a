/**
 * Whether `text` encodes to more than `maxBytes` UTF-8 bytes, without encoding it.
 * Each UTF-16 code unit takes 1 to 3 bytes (a surrogate pair 4 for two units), so
 * most inputs are decided by their length alone and only the middle band is counted.
 */
export function exceedsUtf8Bytes(text: string, maxBytes: number): boolean {
  if (text.length > maxBytes) return true;
  if (text.length * 3 <= maxBytes) return false;
  return utf8Length(text) > maxBytes;
}

/** UTF-8 length of `text`; a lone surrogate counts as the 3 bytes of U+FFFD an encoder writes. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
