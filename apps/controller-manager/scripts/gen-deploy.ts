// npm run gen:deploy: writes the generated parts of deploy/ (see src/deploy/render.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderDeployFiles, repoRoot } from '../src/deploy/render.ts';

for (const f of renderDeployFiles()) {
  const target = path.join(repoRoot, f.path);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, f.content);
  console.log(`wrote ${f.path}`);
}
