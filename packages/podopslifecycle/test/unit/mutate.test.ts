// Table tests of the mutating webhook function: every row of Kuperator's per-id state machine,
// the barrier between ids, undo, gate injection and the step-2 snapshot rule.
import { describe, expect, it } from 'vitest';
import { POL_ANNOTATIONS, POL_PHASE_LABEL, POL_SERVICE_READY_GATE, POL_TRAFFIC_FINALIZER } from '@cloneset-suite/api-types';
import { mutatePod } from '../../src/core/mutate.ts';
import type { Pod } from '../../src/core/pod-state.ts';
import { NOW, PROT, pod, short, type PodSpecShort } from './fixtures.ts';

interface Row {
  name: string;
  old?: Record<string, string>;
  pod: PodSpecShort;
  want: Record<string, string>;
}

// Label timestamps are Unix nanoseconds (19 digits); NOW is what the webhook writes.
const T = '1700000000000000000';
const T2 = '1700000000500000000';
const begun = { 'operating/a': T, 'operation-type/a': 'update' };
const begunAgain = { 'operating/a': T2, 'operation-type/a': 'update' };

const rows: Row[] = [
  // 0 -> 1: Begin gets pre-check in the same write.
  { name: 'Normal -> PreCheck', pod: { labels: begun }, want: { ...begun, 'pre-check/a': NOW } },
  { name: 'PreCheck stays while not approved', pod: { labels: { ...begun, 'pre-check/a': T } }, want: { ...begun, 'pre-check/a': T } },
  // 1 -> 2: the LC's approval; traffic still on, so Preparing, and service-available goes.
  {
    name: 'PreCheck -> Preparing (service-ready True)',
    pod: { labels: { ...begun, 'pre-check/a': T, 'pre-checked/a': T, 'permission/update': T, 'service-available': T }, serviceReady: 'True' },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'preparing/a': NOW },
  },
  // 1 -> 2 -> 3 in one write when the pod is already ready to operate.
  {
    name: 'PreCheck -> Operate in one write (service-ready False, no protection)',
    pod: { labels: { ...begun, 'pre-check/a': T, 'pre-checked/a': T, 'permission/update': T }, serviceReady: 'False' },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': NOW },
  },
  {
    name: 'gate without condition is not ready to operate',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T } },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'preparing/a': NOW },
  },
  {
    name: 'no gate and no condition: ready to operate',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T }, gate: false },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': NOW },
  },
  {
    name: 'protection finalizer holds Preparing (service-ready False)',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'preparing/a': T }, serviceReady: 'False', finalizers: [PROT] },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'preparing/a': T },
  },
  {
    name: 'protection finalizer holds Preparing even without the condition (quirk fixed)',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'preparing/a': T }, gate: false, finalizers: [PROT] },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'preparing/a': T },
  },
  {
    name: 'service-ready True holds Preparing',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'preparing/a': T }, serviceReady: 'True' },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'preparing/a': T },
  },
  // 2 -> 3.
  {
    name: 'Preparing -> Operate',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'preparing/a': T }, serviceReady: 'False' },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': NOW },
  },
  {
    name: 'Operate stays while operating',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': T }, serviceReady: 'True' },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': T },
  },
  // 3 -> 3b -> 4: the OC's finish of the only id passes the barrier at once.
  {
    name: 'Finish -> PostCheck (type read from the old pod)',
    old: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': T },
    pod: { labels: { 'operation-type/a': 'update', 'pre-checked/a': T, 'permission/update': T, 'operate/a': T } },
    want: { 'operated/a': NOW, 'done-operation-type/a': 'update', 'post-check/a': NOW },
  },
  // 4 -> 5.
  {
    name: 'PostCheck -> Completing (not cleared in the same write)',
    pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T, 'post-checked/a': T } },
    want: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': NOW },
  },
  // 5 -> 6.
  {
    name: 'Completing -> cleared',
    pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': T, 'preparing-to-delete': T } },
    want: { 'preparing-to-delete': T },
  },
  {
    name: 'Completing waits for expected finalizers',
    pod: {
      labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': T },
      annotations: { 'pod.kusionstack.io/available-conditions': JSON.stringify({ expectedFinalizers: { 'Service/ns/web': PROT } }) },
    },
    want: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': T },
  },
  {
    name: 'Completing clears once the expected finalizer is back',
    pod: {
      labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': T },
      annotations: { 'pod.kusionstack.io/available-conditions': JSON.stringify({ expectedFinalizers: { 'Service/ns/web': PROT } }) },
      finalizers: [PROT],
    },
    want: {},
  },
  // The barrier between ids.
  {
    name: 'barrier: a finished, b still operating -> a waits in 3b',
    old: { ...begun, 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T },
    pod: { labels: { 'operation-type/a': 'update', 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T } },
    want: { 'operation-type/a': 'update', 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T },
  },
  {
    name: 'barrier: a finished, b still preparing -> nothing moves',
    pod: { labels: { 'operation-type/a': 'update', 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'preparing/b': T, 'permission/update': T, 'permission/restart': T }, serviceReady: 'True' },
    want: { 'operation-type/a': 'update', 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'preparing/b': T, 'permission/update': T, 'permission/restart': T },
  },
  {
    name: 'barrier: the last finish moves every id to PostCheck',
    old: { 'operation-type/a': 'update', 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T },
    pod: { labels: { 'operation-type/a': 'update', 'pre-checked/a': T, 'operate/a': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T } },
    want: { 'operated/a': NOW, 'done-operation-type/a': 'update', 'post-check/a': NOW, 'operated/b': NOW, 'done-operation-type/b': 'restart', 'post-check/b': NOW },
  },
  {
    name: 'cleanup waits until every id is completing',
    pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': T, 'operated/b': T, 'done-operation-type/b': 'restart', 'post-check/b': T, 'post-checked/b': T } },
    want: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': T, 'operated/b': T, 'done-operation-type/b': 'restart', 'post-checked/b': T, 'completing/b': NOW },
  },
  {
    name: 'barrier: an id begun while another completes moves on once it finishes (model-test fix)',
    old: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': T, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/restart': T },
    pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/restart': T } },
    want: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': T, 'operated/b': NOW, 'done-operation-type/b': 'restart', 'post-check/b': NOW },
  },
  // Undo.
  {
    name: 'undo in Preparing removes every label of the id and the last permission of its type',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'preparing/a': T, 'permission/update': T, 'undo-operation-type/a': 'update', 'preparing-to-delete': T } },
    want: { 'preparing-to-delete': T },
  },
  {
    name: 'undo in Operate',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'operate/a': T, 'permission/update': T, 'undo-operation-type/a': 'update' } },
    want: {},
  },
  {
    name: 'undo keeps the permission another id of the type still holds',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'update', 'pre-checked/b': T, 'preparing/b': T, 'permission/update': T, 'undo-operation-type/a': 'update' }, serviceReady: 'True' },
    want: { 'operating/b': T, 'operation-type/b': 'update', 'pre-checked/b': T, 'preparing/b': T, 'permission/update': T },
  },
  {
    name: 'undo drops the permission when the other id of the type is still in PreCheck (model-test fix)',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'preparing/a': T, 'operating/b': T, 'operation-type/b': 'update', 'pre-check/b': T, 'permission/update': T, 'undo-operation-type/a': 'update' } },
    want: { 'operating/b': T, 'operation-type/b': 'update', 'pre-check/b': T },
  },
  {
    name: 'an undone id still counts until the next write: the other id waits at the barrier',
    old: { ...begun, 'pre-checked/a': T, 'operate/a': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T },
    pod: { labels: { ...begun, 'pre-checked/a': T, 'operate/a': T, 'undo-operation-type/a': 'update', 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T } },
    want: { 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/restart': T },
  },
  {
    name: 'undo of an unknown id clears its stray labels',
    pod: { labels: { 'undo-operation-type/x': 'update', 'pre-check/x': T, 'service-available': T } },
    want: { 'service-available': T },
  },
  // An id begun again before its previous run completed starts a fresh run (README "PodOpsLifecycle").
  {
    name: 'a begin in PostCheck starts a fresh run at PreCheck: the earlier run\'s labels go',
    old: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T },
    pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T, ...begunAgain } },
    want: { ...begunAgain, 'pre-check/a': NOW },
  },
  {
    name: 'a begin in Completing starts a fresh run',
    old: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': T },
    pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-checked/a': T, 'completing/a': T, ...begunAgain } },
    want: { ...begunAgain, 'pre-check/a': NOW },
  },
  {
    name: 'a begin of another type in PostCheck starts a fresh run of that type',
    old: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T },
    pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T, 'operating/a': T2, 'operation-type/a': 'scale-in' } },
    want: { 'operating/a': T2, 'operation-type/a': 'scale-in', 'pre-check/a': NOW },
  },
  {
    name: 'a begin of a finished id waiting at the barrier starts a fresh run; its permission goes, the other id\'s stays',
    old: { 'operation-type/a': 'update', 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T },
    pod: { labels: { ...begunAgain, 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T } },
    want: { ...begunAgain, 'pre-check/a': NOW, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/restart': T },
  },
  {
    name: 'a fresh run keeps the permission another id of its earlier type still holds',
    old: { 'operation-type/a': 'update', 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'update', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T },
    pod: { labels: { ...begunAgain, 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'update', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T } },
    want: { ...begunAgain, 'pre-check/a': NOW, 'operating/b': T, 'operation-type/b': 'update', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T },
  },
  // The begin clears only what the earlier run left (labels the old pod carried), never what the write itself sets.
  {
    name: 'a begin written with its later-stage labels keeps them (a tool restoring a pod\'s lifecycle state)',
    old: {},
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'preparing/a': T } },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'preparing/a': T },
  },
  {
    name: 'a begin written with its later-stage labels moves on from them (ready to operate)',
    old: { 'service-available': T },
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'service-available': T }, serviceReady: 'False' },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': NOW },
  },
  {
    name: 'a begin again written with later-stage labels: the earlier run\'s go, the write\'s own stay',
    old: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T },
    pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T, ...begunAgain, 'pre-checked/a': T2, 'permission/update': T2 } },
    want: { ...begunAgain, 'pre-checked/a': T2, 'permission/update': T2, 'preparing/a': NOW },
  },
  {
    name: 'a begin again that writes an earlier-run label with a value of its own keeps it, and its type\'s permission',
    old: { 'operation-type/a': 'update', 'pre-checked/a': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T },
    pod: { labels: { ...begunAgain, 'pre-checked/a': T2, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T } },
    want: { ...begunAgain, 'pre-checked/a': T2, 'preparing/a': NOW, 'operating/b': T, 'operation-type/b': 'restart', 'pre-checked/b': T, 'operate/b': T, 'permission/update': T, 'permission/restart': T },
  },
  {
    name: 'an undo in the same write as the begin wins',
    old: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T },
    pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T, ...begunAgain, 'undo-operation-type/a': 'update' } },
    want: {},
  },
  {
    name: 'a write that keeps operating is no begin: the run goes on',
    old: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': T },
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': T, app: 'x' } },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': T, app: 'x' },
  },
  // A hand-written operate value that is no timestamp is granted again from now (operationDelaySeconds counts from a real time).
  {
    name: 'an operate value that is no timestamp is rewritten to now',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': 'yes' } },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': NOW },
  },
  {
    name: 'an operate value too small to be a nanosecond timestamp is rewritten to now',
    pod: { labels: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': '1' } },
    want: { ...begun, 'pre-checked/a': T, 'permission/update': T, 'operate/a': NOW },
  },
  { name: 'a pod in no lifecycle is left alone', pod: { labels: { 'service-available': T, app: 'web' } }, want: { 'service-available': T, app: 'web' } },
];

describe('mutatePod: the per-id state machine', () => {
  it.each(rows)('$name', (row) => {
    const p = pod(row.pod);
    const old = row.old ? pod({ ...row.pod, labels: row.old }) : undefined;
    const out = mutatePod(old ?? p, p, 'UPDATE', NOW);
    expect(short(out.metadata?.labels)).toEqual(row.want);
  });

  it.each<[string, Record<string, string>, string]>([
    ['a new pod', {}, 'Unavailable'],
    ['an online pod', { 'service-available': T }, 'ServiceAvailable'],
    ['a begun operation', begun, 'PreCheck'],
    ['the least advanced id', { 'operated/a': T, 'done-operation-type/a': 'u', 'post-check/a': T, 'operating/b': T, 'operation-type/b': 'r', 'pre-checked/b': T, 'permission/r': T, 'operate/b': T }, 'Operating'],
    ['a finished id at the barrier', { 'operation-type/a': 'u', 'pre-checked/a': T, 'permission/u': T, 'operate/a': T, 'operating/b': T, 'operation-type/b': 'r', 'pre-checked/b': T, 'permission/r': T, 'operate/b': T }, 'Operating'],
    ['a completing pod', { 'operated/a': T, 'done-operation-type/a': 'u', 'post-checked/a': T }, 'Completing'],
  ])('keeps the phase label current: %s', (_name, labels, phase) => {
    const out = mutatePod(undefined, pod({ labels }), 'UPDATE', NOW);
    expect(out.metadata?.labels?.[POL_PHASE_LABEL]).toBe(phase);
  });

  it('does not modify its inputs', () => {
    const p = pod({ labels: begun });
    const before = structuredClone(p);
    mutatePod(undefined, p, 'CREATE', NOW);
    expect(p).toEqual(before);
  });

  it('injects the service-ready readiness gate on CREATE, once', () => {
    const bare = pod({ gate: false });
    const created = mutatePod(undefined, bare, 'CREATE', NOW);
    expect(created.spec?.readinessGates).toEqual([{ conditionType: POL_SERVICE_READY_GATE }]);
    expect(mutatePod(undefined, created, 'CREATE', NOW).spec?.readinessGates).toHaveLength(1);
    expect(mutatePod(bare, bare, 'UPDATE', NOW).spec?.readinessGates).toBeUndefined();
  });

  it('on CREATE with the traffic cooperation, names every participating Service selecting the pod; never on UPDATE', () => {
    const web = pod({ gate: false });
    web.metadata!.labels = { ...web.metadata!.labels, app: 'web' };
    const traffic = {
      namespace: 'ns',
      services: [
        { name: 'web', selector: { app: 'web' }, ignored: false },
        { name: 'quiet', selector: { app: 'web' }, ignored: true },
        { name: 'other', selector: { app: 'other' }, ignored: false },
      ],
    };
    const entries = (p: Pod | undefined): unknown => JSON.parse(p?.metadata?.annotations?.[POL_ANNOTATIONS.availableConditions] ?? 'null');
    expect(entries(mutatePod(undefined, web, 'CREATE', NOW, traffic))).toEqual({ expectedFinalizers: { 'Service/ns/web': POL_TRAFFIC_FINALIZER } });
    expect(entries(mutatePod(web, web, 'UPDATE', NOW, traffic))).toBeNull();
    expect(entries(mutatePod(undefined, web, 'CREATE', NOW))).toBeNull();
  });

  it('keeps other readiness gates', () => {
    const p = pod({ gate: false });
    p.spec!.readinessGates = [{ conditionType: 'other' }];
    expect(mutatePod(undefined, p, 'CREATE', NOW).spec?.readinessGates).toEqual([{ conditionType: 'other' }, { conditionType: POL_SERVICE_READY_GATE }]);
  });
});
