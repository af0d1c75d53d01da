// Label selectors in the string form the apiserver takes (a=b,c!=d,e in (x,y),f notin (z),g,!h),
// parsed into requirements the cache's index planner can use. The object form (matchLabels /
// matchExpressions) and its canonical string live in @cloneset-suite/api-types.

export type Operator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!';

export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

/** Parses the string form. Throws on syntax errors. */
export function parseLabelSelector(text: string): Requirement[] {
  const reqs: Requirement[] = [];
  for (const part of splitTopLevel(text)) {
    const s = part.trim();
    if (!s) continue;
    let m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(s);
    if (m) {
      const values = (m[3] ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '');
      reqs.push({ key: m[1] ?? '', operator: m[2] as 'in' | 'notin', values });
      continue;
    }
    m = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(s);
    if (m) {
      reqs.push({ key: m[1] ?? '', operator: m[2] === '!=' ? '!=' : '=', values: [m[3] ?? ''] });
      continue;
    }
    m = /^(!?)\s*([\w./-]+)$/.exec(s);
    if (m) {
      reqs.push({ key: m[2] ?? '', operator: m[1] ? '!' : 'exists', values: [] });
      continue;
    }
    throw new Error(`invalid label selector ${JSON.stringify(text)} near ${JSON.stringify(s)}`);
  }
  return reqs;
}

export function matchesLabels(reqs: readonly Requirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.hasOwn(l, r.key);
    const v = l[r.key];
    switch (r.operator) {
      case '=':
        return has && v === r.values[0];
      case '!=':
        return !has || v !== r.values[0];
      case 'in':
        return has && r.values.includes(v ?? '');
      case 'notin':
        return !has || !r.values.includes(v ?? '');
      case 'exists':
        return has;
      case '!':
        return !has;
    }
  });
}

// Commas separate requirements except inside the parentheses of in/notin.
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}
