// Label selector matching (Kubernetes semantics). Local because api-types had not
// exported `labelSelectorMatches` / `labelSelectorToString` yet; move when it does.
import type { Selector } from './types.ts';

export function selectorMatches(selector: Selector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (l[k] !== v) return false;
  }
  for (const r of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(l, r.key);
    const v = l[r.key];
    const values = r.values ?? [];
    switch (r.operator) {
      case 'In':
        if (!has || v === undefined || !values.includes(v)) return false;
        break;
      case 'NotIn':
        if (has && v !== undefined && values.includes(v)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

export function isEmptySelector(selector: Selector | undefined): boolean {
  return (
    !selector ||
    (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)
  );
}

/** Canonical string form used by `status.labelSelector` (§1.6), e.g. `app=sample`. */
export function selectorToString(selector: Selector | undefined): string {
  if (!selector) return '';
  const parts: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) parts.push({ key: k, text: `${k}=${v}` });
  for (const r of selector.matchExpressions ?? []) {
    const vals = [...(r.values ?? [])].sort();
    switch (r.operator) {
      case 'In':
        parts.push({ key: r.key, text: `${r.key} in (${vals.join(',')})` });
        break;
      case 'NotIn':
        parts.push({ key: r.key, text: `${r.key} notin (${vals.join(',')})` });
        break;
      case 'Exists':
        parts.push({ key: r.key, text: r.key });
        break;
      case 'DoesNotExist':
        parts.push({ key: r.key, text: `!${r.key}` });
        break;
    }
  }
  // Kubernetes sorts requirements by key when it builds the selector.
  return parts
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((p) => p.text)
    .join(',');
}
