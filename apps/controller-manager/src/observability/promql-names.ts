// The metric names a PromQL expression reads, so a test can check each one is exported. Not a
// full parser: it drops strings, label matchers, ranges and grouping clauses, then keeps the
// identifiers that are not functions, aggregations or keywords.
const NON_METRICS = new Set([
  'sum', 'min', 'max', 'avg', 'count', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile', 'group',
  'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset',
  'inf', 'nan',
]);

export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\w+/g, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/(?<![\w.])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = m;
    if (call || NON_METRICS.has(name!.toLowerCase()) || /^\d/.test(name!)) continue;
    names.add(name!);
  }
  return [...names].sort();
}
