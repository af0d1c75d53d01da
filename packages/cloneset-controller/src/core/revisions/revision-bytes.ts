// A new ControllerRevision's `data` bytes and hash exactly as OpenKruise makes them (README,
// Compatibility with OpenKruise: moving back), so OpenKruise started again finds
// every revision it expects: `{"spec":{"template":{"$patch":"replace",...}}}` in Go's encoding,
// named by FNV-1 32-bit over those bytes followed by the decimal collision count.
import { goMarshal, type GoJson } from './go-json.ts';
import { goPodTemplate } from './go-template-encoder.ts';

/** Kubernetes' safe-encoding alphabet (no vowels, no easily-confused digits). */
export const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Map each character through the alphabet by its code modulo 27 (OpenKruise's ControllerRevisions). */
export function safeEncode(s: string): string {
  let out = '';
  for (const ch of s) out += SAFE_ALPHABET[ch.charCodeAt(0) % SAFE_ALPHABET.length] ?? '';
  return out;
}

const FNV_OFFSET_BASIS = 2166136261;
const FNV_PRIME = 16777619;

/** FNV-1 (multiply, then xor; not FNV-1a), 32-bit, unsigned. */
export function fnv1x32(bytes: Uint8Array): number {
  let h = FNV_OFFSET_BASIS;
  for (const byte of bytes) h = (Math.imul(h, FNV_PRIME) ^ byte) >>> 0;
  return h;
}

const utf8 = new TextEncoder();

/** The revision `data` text OpenKruise stores for this pod template. */
export function revisionDataText(template: unknown): string {
  const encoded = goPodTemplate(template);
  const withPatch: GoJson = typeof encoded === 'object' && encoded !== null && !Array.isArray(encoded) ? { ...encoded, $patch: 'replace' } : encoded;
  return goMarshal({ spec: { template: withPatch } });
}

/** The hash part of the revision name: kruise always appends the count, even "0". */
export function revisionHash(dataText: string, collisionCount: number): string {
  return safeEncode(String(fnv1x32(utf8.encode(`${dataText}${collisionCount}`))));
}
