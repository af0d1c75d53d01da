// Loads the seed manifests saved under test/fixtures.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import type { CloneSet, PodTransitionRule } from '../src/index.ts';
import type { CloneSetSpec } from '../src/cloneset/schema.ts';

export const fixturePath = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

export const CLONESET_FIXTURES = ['seed-002-cloneset-sample.yaml', 'seed-002-cloneset-sample-data.yaml'] as const;
export const PTR_FIXTURE = 'seed-000-podtransitionrule-sample.yaml';

export function loadCloneSet(name: (typeof CLONESET_FIXTURES)[number] = 'seed-002-cloneset-sample.yaml'): CloneSet {
  return parse(readFileSync(fixturePath(name), 'utf8')) as CloneSet;
}

export function loadPodTransitionRule(): PodTransitionRule {
  return parse(readFileSync(fixturePath(PTR_FIXTURE), 'utf8')) as PodTransitionRule;
}

/** The partial specs of seed 002, each with its leading comment as a title. */
export function loadSpecFragments(): { title: string; spec: Partial<CloneSetSpec> }[] {
  return parseAllDocuments(readFileSync(fixturePath('seed-002-spec-fragments.yaml'), 'utf8')).map((doc) => ({
    title: (doc.commentBefore ?? '').split('\n').pop()?.trim() ?? '',
    spec: doc.toJS() as Partial<CloneSetSpec>,
  }));
}

/** Merges a fragment into a CloneSet spec, one level deep for the strategy objects. */
export function withFragment(cs: CloneSet, fragment: Partial<CloneSetSpec>): CloneSet {
  const out = structuredClone(cs);
  for (const [k, v] of Object.entries(fragment)) {
    const key = k as keyof CloneSetSpec;
    const current = out.spec[key];
    (out.spec as Record<string, unknown>)[key] =
      v !== null && typeof v === 'object' && !Array.isArray(v) && current !== null && typeof current === 'object' ? { ...current, ...v } : v;
  }
  return out;
}
