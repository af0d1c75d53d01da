// The folders of src/core form layers: a file-level cycle check passes when folder A imports B
// and B imports A through different files, yet then neither folder can be read or moved alone.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const core = join(import.meta.dirname, '../../src/core');

function folderEdges(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const dir of readdirSync(core, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const to = new Set<string>();
    for (const file of readdirSync(join(core, dir.name), { recursive: true }).map(String).filter((f) => f.endsWith('.ts'))) {
      for (const m of readFileSync(join(core, dir.name, file), 'utf8').matchAll(/from '\.\.\/([a-z-]+)\//g)) {
        if (m[1] !== dir.name) to.add(m[1]!);
      }
    }
    edges.set(dir.name, to);
  }
  return edges;
}

/** Each folder that can reach itself through other folders, with the way round. */
function cycles(edges: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  for (const start of edges.keys()) {
    const seen = new Set<string>();
    const walk = (at: string, path: string[]): void => {
      for (const next of edges.get(at) ?? []) {
        if (next === start) found.push([...path, next].join(' -> '));
        else if (!seen.has(next)) {
          seen.add(next);
          walk(next, [...path, next]);
        }
      }
    };
    walk(start, [start]);
  }
  return found;
}

describe('src/core folders', () => {
  it('finds a cycle when there is one', () => {
    expect(cycles(new Map([['a', new Set(['b'])], ['b', new Set(['a'])], ['c', new Set(['a'])]]))).toEqual(['a -> b -> a', 'b -> a -> b']);
  });

  it('import each other in no cycle', () => {
    expect(cycles(folderEdges())).toEqual([]);
  });
});
