// The few DER (ASN.1 distinguished encoding) building blocks an X.509 certificate needs.
// Every function returns the complete TLV bytes of one value.

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
export const boolean = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
export const octetString = (content: Buffer): Buffer => tlv(0x04, content);
export const utf8String = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
export const ia5String = (s: string): Buffer => tlv(0x16, Buffer.from(s, 'ascii'));
/** [n] EXPLICIT / constructed context-specific tag. */
export const explicit = (n: number, content: Buffer): Buffer => tlv(0xa0 | n, content);
/** [n] IMPLICIT primitive context-specific tag. */
export const implicit = (n: number, content: Buffer): Buffer => tlv(0x80 | n, content);

/** A non-negative INTEGER from its big-endian magnitude. */
export function unsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  let body = magnitude.subarray(start);
  if (body.length === 0) body = Buffer.from([0]);
  if ((body[0] ?? 0) & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return tlv(0x02, body);
}

export const smallInteger = (n: number): Buffer => unsignedInteger(Buffer.from([n]));

export function objectIdentifier(oid: string): Buffer {
  const arcs = oid.split('.').map(Number);
  const [a = 0, b = 0, ...rest] = arcs;
  const bytes: number[] = [40 * a + b];
  for (const arc of rest) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A BIT STRING holding whole bytes (signatures, keys). */
export const bitStringBytes = (content: Buffer): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), content]));

/** A BIT STRING of named bits (bit 0 is the most significant bit of the first byte), trailing zeros dropped. */
export function namedBits(bits: readonly number[]): Buffer {
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)]! |= 0x80 >> bit % 8;
  const unused = 7 - (highest % 8);
  return tlv(0x03, Buffer.concat([Buffer.from([unused]), bytes]));
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** RFC 5280: UTCTime for 1950-2049, GeneralizedTime otherwise; always UTC with seconds. */
export function time(date: Date): Buffer {
  const y = date.getUTCFullYear();
  const rest = `${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
  if (y >= 1950 && y < 2050) return tlv(0x17, Buffer.from(`${pad(y % 100)}${rest}`, 'ascii'));
  return tlv(0x18, Buffer.from(`${pad(y, 4)}${rest}`, 'ascii'));
}
