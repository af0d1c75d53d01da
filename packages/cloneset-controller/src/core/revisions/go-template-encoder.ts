// A pod template as OpenKruise's Go round trip leaves it (decoded into the typed Go structs of
// pod-template-go-types.ts, encoded again): unknown fields dropped, `omitempty` zeros dropped,
// the fields Go always writes added (`"creationTimestamp":null`, `"resources":{}`, a nil
// non-omitempty pointer as null), quantities in Go's form, integers through float64.
import { goQuantity } from './go-quantity.ts';
import type { GoJson } from './go-json.ts';
import { POD_TEMPLATE_GO_TYPES } from './pod-template-go-types.ts';

type Scalar = 's' | 'i' | 'b' | 'q' | 'ios' | 't' | 'raw';
type Kind =
  | { readonly of: 'scalar'; readonly scalar: Scalar }
  | { readonly of: 'pointer' | 'slice' | 'map'; readonly elem: Kind }
  | { readonly of: 'struct'; readonly name: string };

interface Field {
  readonly name: string;
  readonly kind: Kind;
  readonly omitempty: boolean;
}

const SCALARS = new Set<string>(['s', 'i', 'b', 'q', 'ios', 't', 'raw']);

function parseKind(text: string): Kind {
  if (text.startsWith('*')) return { of: 'pointer', elem: parseKind(text.slice(1)) };
  if (text.startsWith('[]')) return { of: 'slice', elem: parseKind(text.slice(2)) };
  if (text.startsWith('{}')) return { of: 'map', elem: parseKind(text.slice(2)) };
  if (SCALARS.has(text)) return { of: 'scalar', scalar: text as Scalar };
  if (!Object.hasOwn(POD_TEMPLATE_GO_TYPES, text)) throw new Error(`pod-template-go-types: unknown type ${text}`);
  return { of: 'struct', name: text };
}

function parseFields(spec: string): Field[] {
  return spec.split(' ').map((entry) => {
    const [name = '', kindText = ''] = entry.split(':');
    const omitempty = kindText.endsWith('?');
    return { name, kind: parseKind(omitempty ? kindText.slice(0, -1) : kindText), omitempty };
  });
}

const STRUCTS: ReadonlyMap<string, readonly Field[]> = new Map(
  Object.entries(POD_TEMPLATE_GO_TYPES).map(([name, spec]) => [name, parseFields(spec)]),
);

type Plain = Record<string, unknown>;

function isPlainObject(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** A value whose shape the Go type would refuse (kruise could not decode it): kept as JSON as it is. */
function passThrough(v: unknown): GoJson {
  if (v === undefined || v === null) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Date) return goTime(v);
  if (Array.isArray(v)) return v.map(passThrough);
  if (isPlainObject(v)) {
    const out: Record<string, GoJson> = {};
    for (const [k, item] of Object.entries(v)) if (item !== undefined) out[k] = passThrough(item);
    return out;
  }
  return null;
}

/** metav1.Time writes RFC 3339 in UTC with whole seconds. */
function goTime(v: string | Date): GoJson {
  const date = v instanceof Date ? v : new Date(v);
  if (Number.isNaN(date.getTime())) return passThrough(v instanceof Date ? null : v);
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

function scalarValue(scalar: Scalar, v: unknown): GoJson {
  const absent = v === undefined || v === null;
  switch (scalar) {
    case 's':
      return absent ? '' : typeof v === 'string' ? v : passThrough(v);
    case 'b':
      return absent ? false : typeof v === 'boolean' ? v : passThrough(v);
    case 'i':
      return absent ? 0 : typeof v === 'number' || typeof v === 'bigint' ? Number(v) : passThrough(v);
    case 'ios':
      return absent ? 0 : typeof v === 'bigint' ? Number(v) : passThrough(v);
    case 'q':
      if (absent) return '0';
      return typeof v === 'string' || typeof v === 'number' ? (goQuantity(v) ?? v) : passThrough(v);
    case 't':
      return absent ? null : typeof v === 'string' || v instanceof Date ? goTime(v) : passThrough(v);
    case 'raw':
      return passThrough(v);
  }
}

function goValue(kind: Kind, v: unknown): GoJson {
  const absent = v === undefined || v === null;
  switch (kind.of) {
    case 'scalar':
      return scalarValue(kind.scalar, v);
    case 'pointer':
      return absent ? null : goValue(kind.elem, v);
    case 'slice':
      if (absent) return null;
      return Array.isArray(v) ? v.map((item) => goValue(kind.elem, item)) : passThrough(v);
    case 'map': {
      if (absent) return null;
      if (!isPlainObject(v)) return passThrough(v);
      const out: Record<string, GoJson> = {};
      for (const [k, item] of Object.entries(v)) if (item !== undefined) out[k] = goValue(kind.elem, item);
      return out;
    }
    case 'struct':
      if (absent) return goStruct(kind.name, {});
      return isPlainObject(v) ? goStruct(kind.name, v) : passThrough(v);
  }
}

/** Go's isEmptyValue, read on the JSON the Go value would be decoded from. */
function isEmpty(kind: Kind, v: unknown): boolean {
  if (v === undefined || v === null) return kind.of !== 'struct' && !(kind.of === 'scalar' && ['q', 'ios', 't'].includes(kind.scalar));
  switch (kind.of) {
    case 'slice':
      return Array.isArray(v) && v.length === 0;
    case 'map':
      return isPlainObject(v) && Object.keys(v).length === 0;
    case 'scalar':
      return (kind.scalar === 's' && v === '') || (kind.scalar === 'b' && v === false) || (kind.scalar === 'i' && (v === 0 || v === 0n));
    default:
      return false;
  }
}

function goStruct(name: string, obj: Plain): GoJson {
  const out: Record<string, GoJson> = {};
  for (const field of STRUCTS.get(name) ?? []) {
    const v = obj[field.name];
    if (field.omitempty && isEmpty(field.kind, v)) continue;
    out[field.name] = goValue(field.kind, v);
  }
  return out;
}

/** The pod template as OpenKruise's Go types encode it (a plain JSON tree, no bigint). */
export function goPodTemplate(template: unknown): GoJson {
  return goValue({ of: 'struct', name: 'PodTemplateSpec' }, template);
}
