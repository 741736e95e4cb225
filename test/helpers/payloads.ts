/** Payloads of a given size for the queue's and the buffer policy's property tests. */

/** How a payload is made: a string, a typed array, or an ArrayBuffer. */
export type PayloadKind = 'string' | 'bytes' | 'arraybuffer';

/** A string of exactly `size` UTF-8 bytes, mixing 1- to 4-byte characters. */
export function utf8String(size: number, seed: number): string {
  const chars = ['😀', '€', 'é', 'a'];
  let text = '';
  let left = size;
  let i = seed;
  while (left > 0) {
    const char = chars[i++ % chars.length] as string;
    const width = Buffer.byteLength(char, 'utf8');
    if (width <= left) {
      text += char;
      left -= width;
    } else if (left < 4) {
      text += 'a'.repeat(left);
      left = 0;
    }
  }
  return text;
}
