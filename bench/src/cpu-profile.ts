// A V8 CPU profile (.cpuprofile, as `node --cpu-prof` writes it) reduced to what a reader of
// results.md needs to find the next bottleneck: self time by function and by package.

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  /** Microseconds since the previous sample, one per sample. */
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  where: string;
  ms: number;
  share: number;
}

/** "kube-runtime", "cloneset-controller", "undici", "node internals", or V8's own "(garbage collector)"... */
export function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : 'V8 builtins';
  if (url.startsWith('node:')) return 'node internals';
  if (url.startsWith('wasm://')) return 'wasm (undici\'s HTTP parser)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (modules) return modules[1]!.replace(/^@cloneset-suite\//, '');
  const workspace = /\/(?:packages|apps)\/([^/]+)\//.exec(url) ?? /\/(bench)\//.exec(url);
  return workspace ? workspace[1]! : url;
}

function fileOf(url: string): string {
  const parts = url.split('/');
  return parts.slice(-2).join('/');
}

/** Self time per function (largest first) and per package, over the profile's busy time ("(idle)" left out). */
export function summarizeProfile(profile: CpuProfile, top: number): { totalMs: number; functions: SelfTime[]; packages: SelfTime[] } {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  const byNode = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    if (!idle.has(id)) byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const totalUs = [...byNode.values()].reduce((a, b) => a + b, 0);
  const functions = new Map<string, SelfTime>();
  const packages = new Map<string, SelfTime>();
  for (const node of profile.nodes) {
    const us = byNode.get(node.id);
    if (!us) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = packageOf(url, functionName);
    const name = `${functionName || '(anonymous)'}${url ? ` ${fileOf(url)}:${lineNumber + 1}` : ''}`;
    for (const [map, key, label] of [[functions, `${name}\u0000${where}`, name], [packages, where, where]] as const) {
      const entry = map.get(key) ?? { name: label, where, ms: 0, share: 0 };
      entry.ms += us / 1000;
      map.set(key, entry);
    }
  }
  const ranked = (m: Map<string, SelfTime>): SelfTime[] =>
    [...m.values()].map((e) => ({ ...e, share: totalUs ? (e.ms * 1000) / totalUs : 0 })).sort((a, b) => b.ms - a.ms);
  return { totalMs: totalUs / 1000, functions: ranked(functions).slice(0, top), packages: ranked(packages) };
}
