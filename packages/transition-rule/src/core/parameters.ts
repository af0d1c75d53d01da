// Webhook parameters (as Kuperator renders them): a literal `value` wins; otherwise `valueFrom.fieldRef`
// reads the pod: name/namespace/uid, whole label or annotation maps (sorted `k="v"` lines), one
// label or annotation (`metadata.labels['k']`), or any dotted path of the pod's JSON.
import type { Parameter } from '@cloneset-suite/api-types';

export class ParameterError extends Error {
  override name = 'ParameterError';
}

const MAP_ENTRY = /^metadata\.(labels|annotations)\[(['"])(.*)\2\]$/;

function renderMap(map: Readonly<Record<string, string>> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((k) => `${k}=${JSON.stringify(map![k])}`)
    .join('\n');
}

function render(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The value of `fieldPath` in the pod ('' when absent). */
export function fieldValue(pod: unknown, fieldPath: string): string {
  const meta = (pod as { metadata?: Record<string, unknown> } | undefined)?.metadata ?? {};
  const entry = MAP_ENTRY.exec(fieldPath);
  if (entry) return render((meta[entry[1]!] as Record<string, string> | undefined)?.[entry[3]!]);
  if (fieldPath === 'metadata.labels' || fieldPath === 'metadata.annotations') {
    return renderMap(meta[fieldPath.slice('metadata.'.length)] as Record<string, string> | undefined);
  }
  let cursor: unknown = pod;
  for (const part of fieldPath.split('.')) {
    if (cursor === null || typeof cursor !== 'object') return '';
    cursor = (cursor as Record<string, unknown>)[part];
  }
  return render(cursor);
}

/** The pod's parameters; throws ParameterError when a parameter has neither value nor fieldRef. */
export function buildParameters(pod: unknown, parameters: readonly Parameter[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of parameters ?? []) {
    if (p.value !== undefined && p.value !== null) out[p.key] = p.value;
    else if (p.valueFrom?.fieldRef?.fieldPath) out[p.key] = fieldValue(pod, p.valueFrom.fieldRef.fieldPath);
    else throw new ParameterError(`parameter ${p.key} has neither value nor valueFrom.fieldRef`);
  }
  return out;
}
