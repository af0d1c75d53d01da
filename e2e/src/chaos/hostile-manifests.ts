// fast-check generators of hostile and broken CloneSet manifests, each a valid base with one
// thing wrong, labelled with the field an admission refusal must name. Cases the API may accept
// (a pod template it only refuses when the pod is created) say so: the controller must then
// report them with a condition and an Event instead.
import fc from 'fast-check';

export interface HostileCase {
  label: string;
  manifest: Record<string, unknown>;
  /** The field path a refusal message must name. */
  field: string;
  /** True when the CloneSet itself is admissible and only its pods are refused. */
  mayBeAccepted: boolean;
}

type Spec = Record<string, unknown>;

export function validCloneSet(name: string): { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec: Spec } {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } },
    },
  };
}

const caseOf = (label: string, field: string, mutate: (cs: ReturnType<typeof validCloneSet>) => void, mayBeAccepted = false) => ({ label, field, mutate, mayBeAccepted });
type Mutation = ReturnType<typeof caseOf>;

/** Values that are not integers (nor int-or-strings, where `strings` is false). */
const notAnInteger = fc.oneof(fc.string({ maxLength: 8 }).filter((s) => !/^-?\d+$/.test(s)), fc.boolean(), fc.constant({}), fc.constant([1]), fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true }));

/** Malformed int-or-percent strings; there is no upper bound (200% is valid), so none above 100% here. */
const badPercent = fc.oneof(
  fc.integer({ min: 1, max: 100 }).map((n) => `-${n}%`),
  fc.stringMatching(/^[a-z]{1,5}%$/),
  fc.constant('%'),
  fc.constant('50 %'),
  fc.constant('%50'),
);

const int32Overflow = fc.oneof(fc.integer({ min: 2 ** 31, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: Number.MIN_SAFE_INTEGER, max: -(2 ** 31) - 1 }));

const replicas: fc.Arbitrary<Mutation> = fc.oneof(
  notAnInteger.map((v) => caseOf(`replicas ${JSON.stringify(v)}`, 'spec.replicas', (cs) => void (cs.spec.replicas = v))),
  int32Overflow.map((v) => caseOf(`replicas ${v}`, 'spec.replicas', (cs) => void (cs.spec.replicas = v))),
  fc.integer({ min: -(2 ** 31), max: -1 }).map((v) => caseOf(`replicas ${v}`, 'spec.replicas', (cs) => void (cs.spec.replicas = v))),
);

const selectors: fc.Arbitrary<Mutation> = fc.oneof(
  fc.stringMatching(/^[a-z]{1,8}$/).map((v) =>
    caseOf(`selector app=${v}-x not matching the template`, 'spec.template.metadata.labels', (cs) => void (cs.spec.selector = { matchLabels: { app: `${v}-x` } })),
  ),
  fc.stringMatching(/^[A-Za-z]{1,10}$/).filter((op) => !['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(op)).map((op) =>
    caseOf(`selector operator ${op}`, 'spec.selector', (cs) => void (cs.spec.selector = { matchLabels: (cs.spec.selector as { matchLabels: unknown }).matchLabels, matchExpressions: [{ key: 'app', operator: op, values: ['a'] }] })),
  ),
  fc.constantFrom('!bad', 'a/b/c', '-lead', 'x'.repeat(64), 'spa ce').map((key) =>
    caseOf(`selector key ${JSON.stringify(key)}`, 'spec.selector', (cs) => {
      cs.spec.selector = { matchLabels: { [key]: 'v' } };
      (cs.spec.template as { metadata: { labels: Record<string, string> } }).metadata.labels[key] = 'v';
    }),
  ),
  fc.constant(caseOf('selector empty', 'spec.selector', (cs) => void (cs.spec.selector = {}))),
  fc.constant(caseOf('selector missing', 'spec.selector', (cs) => void delete cs.spec.selector)),
);

type KnobPath = 'updateStrategy.maxUnavailable' | 'updateStrategy.maxSurge' | 'updateStrategy.partition' | 'scaleStrategy.maxUnavailable';
const knobs: readonly KnobPath[] = ['updateStrategy.maxUnavailable', 'updateStrategy.maxSurge', 'updateStrategy.partition', 'scaleStrategy.maxUnavailable'];

const setKnob = (path: KnobPath, v: string): Mutation =>
  caseOf(`${path} ${v}`, `spec.${path}`, (cs) => {
    const [parent, key] = path.split('.') as [string, string];
    cs.spec[parent] = { ...((cs.spec[parent]) ?? {}), [key]: v };
  });

const percentages: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.constantFrom(...knobs), badPercent).map(([path, v]) => setKnob(path, v)),
  // Decimals are refused for the surge/unavailable knobs (integer percentages only); partition takes them.
  fc.constantFrom(...knobs.filter((k) => k !== 'updateStrategy.partition')).map((path) => setKnob(path, '10.5%')),
);

const bigAnnotations: fc.Arbitrary<Mutation> = fc.integer({ min: 257 * 1024, max: 1024 * 1024 }).map((size) =>
  caseOf(`metadata annotation of ${size} bytes`, 'metadata.annotations', (cs) => void (cs.metadata.annotations = { 'example.com/blob': 'x'.repeat(size) })),
);

const containers = (cs: ReturnType<typeof validCloneSet>): Record<string, unknown>[] => (cs.spec.template as { spec: { containers: Record<string, unknown>[] } }).spec.containers;

/** Pod templates the apiserver refuses when a pod is created from them. */
const brokenTemplates: fc.Arbitrary<Mutation> = fc.oneof(
  fc.stringMatching(/^[A-Z_][A-Za-z_]{0,8}$/).map((n) => caseOf(`container name ${n}`, 'spec.template.spec.containers[0].name', (cs) => void (containers(cs)[0]!.name = n), true)),
  fc.integer({ min: 65_536, max: 10_000_000 }).map((p) =>
    caseOf(`containerPort ${p}`, 'spec.template.spec.containers[0].ports[0].containerPort', (cs) => void (containers(cs)[0]!.ports = [{ containerPort: p }]), true),
  ),
  fc.constant(caseOf('two containers named main', 'spec.template.spec.containers[1].name', (cs) => void containers(cs).push({ name: 'main', image: 'nginx:1.27' }), true)),
  fc.stringMatching(/^[a-z]{3,10}$/).map((n) =>
    caseOf(`serviceAccountName ${n}-missing`, 'spec.template.spec.serviceAccountName', (cs) => void ((cs.spec.template as { spec: Spec }).spec.serviceAccountName = `${n}-missing`), true),
  ),
  fc.stringMatching(/^[a-z]{3,10}$/).map((n) =>
    caseOf(`priorityClassName ${n}-missing`, 'spec.template.spec.priorityClassName', (cs) => void ((cs.spec.template as { spec: Spec }).spec.priorityClassName = `${n}-missing`), true),
  ),
  fc.constant(caseOf('restartPolicy Never', 'spec.template.spec.restartPolicy', (cs) => void ((cs.spec.template as { spec: Spec }).spec.restartPolicy = 'Never'), true)),
  fc.constant(caseOf('volume mount naming no volume', 'spec.template.spec.containers[0].volumeMounts[0].name', (cs) => void (containers(cs)[0]!.volumeMounts = [{ name: 'nowhere', mountPath: '/x' }]), true)),
);

/** One hostile CloneSet named `name-<n>`; the weights keep the costly 1 MiB cases a minority. */
export function hostileCloneSet(prefix: string): fc.Arbitrary<HostileCase> {
  return fc
    .tuple(
      fc.oneof({ arbitrary: replicas, weight: 3 }, { arbitrary: selectors, weight: 3 }, { arbitrary: percentages, weight: 3 }, { arbitrary: bigAnnotations, weight: 1 }, { arbitrary: brokenTemplates, weight: 2 }),
      fc.integer({ min: 0, max: 0xffffff }),
    )
    .map(([m, n]) => {
      const cs = validCloneSet(`${prefix}-${n.toString(16)}`);
      m.mutate(cs);
      return { label: m.label, manifest: cs, field: m.field, mayBeAccepted: m.mayBeAccepted };
    });
}
