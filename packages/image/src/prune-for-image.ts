// Run by the Dockerfile in its build stage, at the copied repo's root, before `npm install`:
//   node packages/image/src/prune-for-image.ts @cloneset-suite/controller-manager
// Removes every file the image does not run (other workspaces, tests, tooling) and rewrites the
// root package.json to name only the workspaces kept, so the install links and installs exactly
// the entry workspace's run-time graph. Imports nothing but Node's own modules and this package's.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { imageLayout, pathDisposition } from './image-layout.ts';
import { readRootManifest, readWorkspaces } from './workspaces.ts';

function prune(dir: string, rel: string, keep: readonly string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const entryRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
    const disposition = pathDisposition(entryRel, keep);
    if (disposition === 'remove') rmSync(path.join(dir, entry.name), { recursive: true, force: true });
    else if (disposition === 'descend' && entry.isDirectory()) prune(path.join(dir, entry.name), entryRel, keep);
  }
}

const entry = process.argv[2];
if (entry === undefined || entry === '') {
  process.stderr.write('usage: prune-for-image.ts <entry workspace name>\n');
  process.exit(2);
}
const repoRoot = process.cwd();
const root = readRootManifest(repoRoot);
const layout = imageLayout(root, readWorkspaces(repoRoot, root), entry);
prune(repoRoot, '', layout.keep);
writeFileSync(path.join(repoRoot, 'package.json'), `${JSON.stringify(layout.rootManifest, null, 2)}\n`);
process.stdout.write(`image keeps ${layout.workspaceDirs.join(', ')}\n`);
