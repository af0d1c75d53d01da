#!/usr/bin/env node
// kubectl finds this executable on PATH as the `cloneset` plugin. The plugin is TypeScript run
// by Node's type stripping (Node >= 22.18); on an older `node` the launcher hands over to the
// pinned Node of the `node` dependency instead of failing on syntax.
/* global process, console, URL */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major > 22 || (major === 22 && minor >= 18)) {
  await import('../src/main.ts');
} else {
  let pinned;
  try {
    pinned = path.join(path.dirname(createRequire(import.meta.url).resolve('node/package.json')), 'bin', 'node');
  } catch {
    console.error(`error: kubectl-cloneset needs Node >= 22.18 (this is ${process.version}) and its pinned "node" dependency is not installed`);
    process.exit(1);
  }
  const main = new URL('../src/main.ts', import.meta.url).pathname;
  const child = spawnSync(pinned, [main, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (child.error) {
    console.error(`error: could not start ${pinned}: ${child.error.message}`);
    process.exit(1);
  }
  process.exit(child.status ?? 1);
}
