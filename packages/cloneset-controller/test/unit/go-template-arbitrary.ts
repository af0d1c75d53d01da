// Random pod templates in the value space of OpenKruise's Go types, generated from the same
// table the encoder reads: every struct of it is reachable. Values Go cannot tell from "unset"
// (an omitempty 0 or false, an absent non-pointer field) are left out, so a template and its
// Go round trip are semantically equal.
import fc from 'fast-check';
import { POD_TEMPLATE_GO_TYPES } from '../../src/core/revisions/pod-template-go-types.ts';

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('', '<b>a & b</b>', 'line\u2028sep\u2029', 'tab\tnl\n\u0001\u007f', 'say "hi" \\', 'héllo 😀 日本'),
);
const nonZeroInt = fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).filter((n) => n !== 0), fc.constant(2 ** 53));
const anyInt = fc.oneof(nonZeroInt, fc.constant(0));
const quantity = fc
  .tuple(fc.integer({ min: 0, max: 5000 }), fc.constantFrom('', 'm', 'k', 'M', 'Ki', 'Mi', 'Gi', 'e3', 'e6', '.5', '.25Gi'))
  .map(([n, suffix]) => `${n}${suffix}`);
const time = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString().replace(/\.\d+Z$/, 'Z'));

interface FieldSpec {
  field: string;
  kind: string;
  omitempty: boolean;
}

function fieldsOf(name: string): FieldSpec[] {
  return (POD_TEMPLATE_GO_TYPES[name] ?? '').split(' ').map((entry) => {
    const [field = '', kind = ''] = entry.split(':');
    const omitempty = kind.endsWith('?');
    return { field, kind: omitempty ? kind.slice(0, -1) : kind, omitempty };
  });
}

/** Go writes these even when unset (a zero Quantity/IntOrString is "0"/0, a required int 0). */
const isRequired = (f: FieldSpec): boolean => f.kind === 'q' || f.kind === 'ios' || (!f.omitempty && (f.kind === 'i' || f.kind === 'b'));

const cache = new Map<string, fc.Arbitrary<unknown>>();

function kindArbitrary(kind: string, omitempty: boolean): fc.Arbitrary<unknown> {
  if (kind.startsWith('*')) return kindArbitrary(kind.slice(1), false);
  if (kind.startsWith('[]')) return fc.array(kindArbitrary(kind.slice(2), false), { maxLength: 2 });
  if (kind.startsWith('{}')) return fc.dictionary(text, kindArbitrary(kind.slice(2), false), { maxKeys: 2 });
  switch (kind) {
    case 's':
      return text;
    case 'i':
      return omitempty ? nonZeroInt : anyInt;
    case 'b':
      return omitempty ? fc.constant(true) : fc.boolean();
    case 'q':
      return quantity;
    case 'ios':
      return fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.stringMatching(/^[a-z]{1,8}$/));
    case 't':
      return time;
    case 'raw':
      return fc.dictionary(fc.stringMatching(/^[a-z:.]{1,6}$/), fc.constant({}), { maxKeys: 2 });
    default:
      return structArbitrary(kind);
  }
}

/** A struct with every non-omitempty field and up to three optional ones. */
export function structArbitrary(name: string): fc.Arbitrary<unknown> {
  const hit = cache.get(name);
  if (hit) return hit;
  const fields = fieldsOf(name);
  const required = fields.filter(isRequired);
  const optional = fields.filter((f) => !required.includes(f));
  const arb = fc
    .subarray(optional, { maxLength: Math.min(3, optional.length) })
    .chain((chosen) =>
      fc.record(Object.fromEntries([...required, ...chosen].map((f) => [f.field, kindArbitrary(f.kind, f.omitempty)]))),
    );
  cache.set(name, arb);
  return arb;
}

export const podTemplateArbitrary = (): fc.Arbitrary<unknown> => structArbitrary('PodTemplateSpec');

type Step = { field: string; wrap: 'none' | 'slice' | 'map'; parent: string };

/** The first path (breadth first) from PodTemplateSpec to each struct of the table. */
function pathsToStructs(): Map<string, Step[]> {
  const paths = new Map<string, Step[]>([['PodTemplateSpec', []]]);
  const queue = ['PodTemplateSpec'];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    for (const f of fieldsOf(name)) {
      const steps: Step[] = [...(paths.get(name) ?? [])];
      let kind = f.kind.replace(/^\*/, '');
      const wrap = kind.startsWith('[]') ? 'slice' : kind.startsWith('{}') ? 'map' : 'none';
      kind = kind.replace(/^(\[\]|\{\})\*?/, '');
      if (!Object.hasOwn(POD_TEMPLATE_GO_TYPES, kind) || paths.has(kind)) continue;
      paths.set(kind, [...steps, { field: f.field, wrap, parent: name }]);
      queue.push(kind);
    }
  }
  return paths;
}

const PATHS = pathsToStructs();
const FILLER: Record<string, unknown> = { i: 1, b: true, q: '1', ios: 1 };

/** A pod template holding `value` (a `name` struct) where the Go types put one, with the fields Go always writes filled in on the way. */
function embed(name: string, value: unknown): unknown {
  let inner = value;
  for (const step of [...(PATHS.get(name) ?? [])].reverse()) {
    const required = Object.fromEntries(fieldsOf(step.parent).filter(isRequired).map((f) => [f.field, FILLER[f.kind] ?? {}]));
    const wrapped = step.wrap === 'slice' ? [inner] : step.wrap === 'map' ? { key: inner } : inner;
    inner = { ...required, [step.field]: wrapped };
  }
  return inner;
}

/** Every struct of the table, equally likely, placed inside a pod template. */
export const anyStructInTemplateArbitrary = (): fc.Arbitrary<unknown> =>
  fc.constantFrom(...PATHS.keys()).chain((name) => structArbitrary(name).map((value) => embed(name, value)));

export const reachableStructCount = (): number => PATHS.size;
