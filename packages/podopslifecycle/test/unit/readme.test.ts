// The README's SDK example is the type-checked test/readme-example.ts, verbatim.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (rel: string): string => readFileSync(new URL(rel, import.meta.url), 'utf8');

describe('README', () => {
  it('shows the type-checked operating-controller example', () => {
    const example = read('../readme-example.ts').split('\n').slice(1).join('\n');
    expect(read('../../README.md')).toContain('```ts\n' + example + '```');
    expect(example.split('\n').length).toBeLessThanOrEqual(22);
  });
});
