// Reads counters out of Prometheus text exposition (the manager's /metrics): the chaos scenarios
// count requests to prove backoff, not a hot loop.

/** Sum of every sample of `name` whose labels include all of `match`. */
export function sumSamples(text: string, name: string, match: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labels = new Map<string, string>();
    const brace = /^[^{]+\{(.*)\}\s/.exec(line);
    for (const m of (brace?.[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels.set(m[1]!, m[2]!);
    if (Object.entries(match).every(([k, v]) => labels.get(k) === v)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}
