// What the image's build context is reduced to before `npm install`: the root manifest naming only
// the workspaces the entry workspace needs at run time, and of each of them its manifest and
// sources. Decided here, done by prune-for-image.ts.
import { runtimeClosure, type WorkspaceManifest } from './workspace-graph.ts';

export interface RootManifest {
  workspaces?: unknown;
  [field: string]: unknown;
}

export interface ImageLayout {
  /** Workspace directories kept, relative to the repo root. */
  workspaceDirs: string[];
  /** Paths kept, relative to the repo root; everything else is removed. */
  keep: string[];
  /** The root package.json the image's install reads. */
  rootManifest: RootManifest;
}

/** Files at the repo root npm's install reads: the locked versions and npm's own settings. */
const rootFilesKept = ['package.json', 'package-lock.json', '.npmrc'];
/** What of a workspace runs: Node strips the types of its TypeScript sources, so there is no build output. */
const workspaceEntriesKept = ['package.json', 'src'];

export function imageLayout(root: RootManifest, workspaces: readonly WorkspaceManifest[], entry: string): ImageLayout {
  const workspaceDirs = runtimeClosure(workspaces, entry).map((w) => w.dir);
  // Only the fields an install of production dependencies reads: scripts and devDependencies of
  // the monorepo would pull in its tooling (and a second Node binary).
  return {
    workspaceDirs,
    keep: [...rootFilesKept, ...workspaceDirs.flatMap((dir) => workspaceEntriesKept.map((entryName) => `${dir}/${entryName}`))],
    rootManifest: { name: root.name, private: true, type: root.type, workspaces: workspaceDirs },
  };
}

/** Whether `relPath` (a path below the repo root) is kept, lies inside a kept path, or leads to one. */
export function pathDisposition(relPath: string, keep: readonly string[]): 'keep' | 'descend' | 'remove' {
  if (keep.some((k) => relPath === k || relPath.startsWith(`${k}/`))) return 'keep';
  if (keep.some((k) => k.startsWith(`${relPath}/`))) return 'descend';
  return 'remove';
}
