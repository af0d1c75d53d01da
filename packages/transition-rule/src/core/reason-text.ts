// The text a round copies into the rule status and the pods' detail annotations: bounded in size
// (a webhook may answer a 1 MiB message for every pod, and the apiserver refuses objects past
// about 1.5 MiB and pod annotations past 256 KiB in all), free of control characters, and stable
// across retries that differ only by the traceId they carry (a new traceId alone is not a change
// worth a status write and one annotation write per held pod).

/** Longest reason or message (UTF-8 bytes) copied into a status or an annotation. */
export const MAX_REASON_BYTES = 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/** Control characters (C0, DEL, C1) become spaces: they garble terminals and log lines. */
export function stripControlCharacters(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/**
 * `text` if it fits in `maxBytes` of UTF-8, else its head with a marker saying it was cut and how
 * long it was; the result never exceeds `maxBytes` and never splits a character.
 */
export function capText(text: string, maxBytes = MAX_REASON_BYTES): string {
  // A UTF-16 unit takes at most 3 bytes of UTF-8: text this short fits without encoding it.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const marker = `... [cut, ${bytes.length} bytes]`;
  const room = maxBytes - utf8Bytes(marker);
  if (room <= 0) return marker.slice(0, Math.max(0, maxBytes));
  // Back up to the first byte of a character (continuation bytes are 10xxxxxx).
  let end = room;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end)) + marker;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The previous reason when the next one says the same thing with another traceId in every place
 * `traceId` appears (the same answer to a retried call), else the next reason.
 */
export function stableReason(previous: string | undefined, next: string, traceId: string): string {
  if (previous === undefined || previous === next || traceId === '' || !next.includes(traceId)) return next;
  const parts = next.split(traceId).map(escapeRegExp);
  // The first place the id appears captures the earlier id; the others must repeat it.
  const pattern = parts[0] + '(\\S+?)' + parts.slice(1).join('\\1');
  return new RegExp(`^${pattern}$`, 'su').test(previous) ? previous : next;
}
