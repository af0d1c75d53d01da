import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { defaultCloneSet, defaultPodTransitionRule, validateCloneSet, validatePodTransitionRule, type CloneSet, type PodTransitionRule } from '@cloneset-suite/api-types';
import { mutatePod, validatePod, type Pod } from '@cloneset-suite/podopslifecycle';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

describe('examples/', () => {
  it('has the seed samples', () => {
    expect(files.sort()).toEqual(['cloneset-lifecycle.yaml', 'cloneset-partition.yaml', 'cloneset-podopslifecycle.yaml', 'cloneset-pvc.yaml', 'cloneset.yaml', 'podopslifecycle-pod.yaml', 'podtransitionrule.yaml']);
  });

  it.each(files)('%s passes the admission defaulting and validation', (file) => {
    for (const doc of parseAllDocuments(readFileSync(path.join(dir, file), 'utf8'))) {
      const obj = doc.toJS() as { kind: string };
      if (obj.kind === 'CloneSet') expect(validateCloneSet(defaultCloneSet(obj as unknown as CloneSet))).toEqual([]);
      else if (obj.kind === 'Pod') expect(validatePod(mutatePod(undefined, obj as unknown as Pod, 'CREATE', '1'))).toEqual([]);
      else if (obj.kind === 'Service') expect(obj).toMatchObject({ apiVersion: 'v1', spec: { selector: expect.any(Object) } });
      else if (obj.kind === 'PodTransitionRule') expect(validatePodTransitionRule(defaultPodTransitionRule(obj as unknown as PodTransitionRule))).toEqual([]);
      else throw new Error(`unexpected kind ${obj.kind} in ${file}`);
    }
  });
});
