import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finalSpec, pickPod, writerSchedule, type ScheduleOptions } from './writer-schedule.ts';

const options: ScheduleOptions = { edits: 40, spanMs: 30_000, minReplicas: 3, maxReplicas: 8, images: ['nginx:a', 'nginx:b'], closingImage: 'nginx:c' };

describe('writerSchedule', () => {
  it('replays the same edits for the same seed, others for another', () => {
    expect(writerSchedule(5, options)).toEqual(writerSchedule(5, options));
    expect(writerSchedule(5, options)).not.toEqual(writerSchedule(6, options));
  });

  it('refuses a closing image that an earlier edit could set', () => {
    expect(() => writerSchedule(5, { ...options, closingImage: 'nginx:b' })).toThrow(/bad writer schedule options/);
  });

  it('makes every kind of edit over a long enough schedule', () => {
    const kinds = new Set(writerSchedule(1, { ...options, edits: 300 }).map((e) => e.edit.kind));
    expect([...kinds].sort()).toEqual(['deletePod', 'image', 'markAll', 'partition', 'paused', 'podAnnotation', 'podLabel', 'replicas']);
  });

  it('the final spec is the last value of each field, starting from the initial one', () => {
    const schedule = [
      { atMs: 0, edit: { kind: 'replicas' as const, value: 5 } },
      { atMs: 1, edit: { kind: 'podLabel' as const, pick: 0.3 } },
      { atMs: 2, edit: { kind: 'image' as const, value: 'nginx:b' } },
      { atMs: 3, edit: { kind: 'replicas' as const, value: 4 } },
      { atMs: 4, edit: { kind: 'paused' as const, value: false } },
    ];
    expect(finalSpec({ replicas: 3, partition: 1, image: 'nginx:a', paused: true }, schedule)).toEqual({ replicas: 4, partition: 1, image: 'nginx:b', paused: false });
  });

  it('property: times increase within the span, values stay in range; it ends marking every pod, then the closing image, which no earlier edit set, a partition below replicas lets through, unpaused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 200 }), (seed, edits) => {
        const s = writerSchedule(seed, { ...options, edits });
        expect(s).toHaveLength(edits + 4);
        expect(s.every((e, i) => e.atMs >= 0 && e.atMs <= options.spanMs && (i === 0 || e.atMs >= s[i - 1]!.atMs))).toBe(true);
        const after = finalSpec({ replicas: 3, partition: 0, image: 'nginx:a', paused: true }, s);
        expect(s.at(-4)!.edit.kind).toBe('markAll');
        expect(after.image).toBe(options.closingImage);
        expect(s.slice(0, -4).some((e) => e.edit.kind === 'image' && e.edit.value === options.closingImage)).toBe(false);
        expect(after.partition).toBeLessThan(after.replicas);
        expect(after.paused).toBe(false);
        let replicas = options.minReplicas;
        for (const { edit } of s) {
          if (edit.kind === 'replicas') {
            expect(edit.value).toBeGreaterThanOrEqual(options.minReplicas);
            expect(edit.value).toBeLessThanOrEqual(options.maxReplicas);
            replicas = edit.value;
          }
          if (edit.kind === 'partition') expect(edit.value).toBeLessThanOrEqual(replicas);
          if (edit.kind === 'image') expect([...options.images, options.closingImage]).toContain(edit.value);
          if ('pick' in edit) expect(edit.pick >= 0 && edit.pick < 1).toBe(true);
        }
      }),
    );
  });

  it('alternates the image: back and forth, never the same twice in a row', () => {
    const images = writerSchedule(3, { ...options, edits: 200 }).slice(0, -4).flatMap((e) => (e.edit.kind === 'image' ? [e.edit.value] : []));
    expect(images.length).toBeGreaterThan(5);
    expect(images.every((img, i) => i === 0 || img !== images[i - 1])).toBe(true);
  });
});

describe('pickPod', () => {
  it.each<[string[], number, string | undefined]>([
    [[], 0.5, undefined],
    [['c', 'a', 'b'], 0, 'a'],
    [['c', 'a', 'b'], 0.5, 'b'],
    [['c', 'a', 'b'], 0.999, 'c'],
  ])('%j at %d -> %s', (names, pick, expected) => {
    expect(pickPod(names, pick)).toBe(expected);
  });
});
