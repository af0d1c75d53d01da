// `npm run gen`: writes the generated CRDs to <repo>/crds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCrdFiles } from '../src/crd/generate.ts';

const crdDir = fileURLToPath(new URL('../../../crds/', import.meta.url));
mkdirSync(crdDir, { recursive: true });
for (const file of renderCrdFiles()) {
  writeFileSync(crdDir + file.name, file.text);
  console.log(`wrote crds/${file.name}`);
}
