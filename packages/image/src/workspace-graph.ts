// Which workspace packages a workspace needs at run time: its `dependencies` that name another
// workspace, followed transitively. The image ships exactly these (and npm installs their
// third-party dependencies), so a package added to the graph is in the image without an edit here.

export interface WorkspaceManifest {
  /** The workspace's directory, relative to the repo root (e.g. packages/api-types). */
  dir: string;
  name: string;
  dependencies: Readonly<Record<string, string>>;
}

/** The workspaces `root` depends on at run time, itself included, in a stable order (by dir). */
export function runtimeClosure(workspaces: readonly WorkspaceManifest[], root: string): WorkspaceManifest[] {
  const byName = new Map(workspaces.map((w) => [w.name, w]));
  const start = byName.get(root);
  if (start === undefined) throw new Error(`no workspace is named ${JSON.stringify(root)} (known: ${[...byName.keys()].sort().join(', ')})`);
  const seen = new Map<string, WorkspaceManifest>();
  const pending = [start];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (seen.has(next.name)) continue;
    seen.set(next.name, next);
    for (const dep of Object.keys(next.dependencies)) {
      const workspace = byName.get(dep);
      if (workspace !== undefined) pending.push(workspace);
    }
  }
  return [...seen.values()].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
}
