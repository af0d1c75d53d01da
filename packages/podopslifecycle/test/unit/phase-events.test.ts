// Traceability: one Event per phase change, naming id and type, with the time spent before.
import { describe, expect, it } from 'vitest';
import { observePod, phaseChangeEvents } from '../../src/core/phase-events.ts';
import { pod } from './fixtures.ts';

const s = (n: number): string => `${BigInt(n) * 1_000_000_000n}`; // n seconds, in nanoseconds
const at = (labels: Record<string, string>) => observePod(pod({ labels }));

describe('phase-change Events', () => {
  it('reports each new phase with the time spent in the previous one', () => {
    const preCheck = at({ 'operating/a': s(1), 'operation-type/a': 'update', 'pre-check/a': s(1) });
    const preparing = at({ 'operating/a': s(1), 'operation-type/a': 'update', 'pre-checked/a': s(3), 'permission/update': s(3), 'preparing/a': s(3) });
    const events = phaseChangeEvents(preCheck, preparing);
    expect(events).toEqual([{ type: 'Normal', reason: 'Preparing', action: 'Lifecycle', note: `lifecycle a (type update) entered Preparing at ${s(3)} after 2.000s in PreCheck` }]);
    expect(phaseChangeEvents(preparing, preparing)).toEqual([]);
  });

  it('covers PreCheck, Operating, PostCheck, Completing and ServiceAvailable', () => {
    const steps = [
      at({}),
      at({ 'operating/a': s(1), 'operation-type/a': 'u', 'pre-check/a': s(1) }),
      at({ 'operating/a': s(1), 'operation-type/a': 'u', 'pre-checked/a': s(2), 'permission/u': s(2), 'operate/a': s(2) }),
      at({ 'operated/a': s(4), 'done-operation-type/a': 'u', 'post-check/a': s(4) }),
      at({ 'operated/a': s(4), 'done-operation-type/a': 'u', 'post-checked/a': s(5), 'completing/a': s(5) }),
      at({ 'service-available': s(6) }),
    ];
    const reasons = steps.slice(1).flatMap((cur, i) => phaseChangeEvents(steps[i], cur).map((e) => e.reason));
    expect(reasons).toEqual(['PreCheck', 'Operating', 'PostCheck', 'Completing', 'ServiceAvailable']);
  });

  it('an id that vanishes before PostCheck was undone', () => {
    const preparing = at({ 'operating/a': s(1), 'operation-type/a': 'update', 'pre-checked/a': s(3), 'permission/update': s(3), 'preparing/a': s(3) });
    expect(phaseChangeEvents(preparing, at({}))).toEqual([expect.objectContaining({ reason: 'Undone', note: 'lifecycle a (type update) undone in Preparing' })]);
  });

  it('reports nothing on first sight (a restart does not replay history)', () => {
    expect(phaseChangeEvents(undefined, at({ 'service-available': s(1) }))).toEqual([]);
  });

  it('says so when an id waits in PreCheck without an operation type, once, and again if the type is taken away', () => {
    const online = at({ 'service-available': s(1) });
    const typeless = at({ 'operating/a': s(2), 'pre-check/a': s(2) });
    const [missing, entered] = phaseChangeEvents(online, typeless);
    expect(entered).toEqual(expect.objectContaining({ reason: 'PreCheck', note: `lifecycle a (type none) entered PreCheck at ${s(2)}` }));
    expect(missing).toEqual(expect.objectContaining({ type: 'Warning', reason: 'MissingOperationType' }));
    expect(missing!.note).toContain('operation-type.podopslifecycle.kusionstack.io/a');
    expect(phaseChangeEvents(typeless, typeless)).toEqual([]);
    const typed = at({ 'operating/a': s(2), 'operation-type/a': 'update', 'pre-check/a': s(2) });
    expect(phaseChangeEvents(typeless, typed)).toEqual([]);
    expect(phaseChangeEvents(typed, typeless).map((e) => e.reason)).toEqual(['MissingOperationType']);
  });

  it('warns when a pod without the service-ready gate is operated: nothing took its traffic off', () => {
    const gateless = (labels: Record<string, string>) => observePod(pod({ labels, gate: false }));
    const preCheck = gateless({ 'operating/a': s(1), 'operation-type/a': 'u', 'pre-check/a': s(1) });
    const operating = gateless({ 'operating/a': s(1), 'operation-type/a': 'u', 'pre-checked/a': s(2), 'permission/u': s(2), 'operate/a': s(2) });
    expect(phaseChangeEvents(preCheck, operating).map((e) => e.reason)).toEqual(['Operating', 'NoServiceReadyGate']);
    const withGate = at({ 'operating/a': s(1), 'operation-type/a': 'u', 'pre-checked/a': s(2), 'permission/u': s(2), 'operate/a': s(2) });
    expect(phaseChangeEvents(at({ 'operating/a': s(1), 'operation-type/a': 'u', 'pre-check/a': s(1) }), withGate).map((e) => e.reason)).toEqual(['Operating']);
  });
});
