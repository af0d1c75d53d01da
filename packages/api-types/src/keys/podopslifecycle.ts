// PodOpsLifecycle keys, byte-compatible with Kuperator's: per-id label prefixes,
// global labels, annotations, finalizers and the readiness gate; helpers for `<prefix>/<id>` keys
// and the Unix-nanosecond timestamps used as label values.

/** Label prefixes that take a lifecycle id (or, for operationPermission, an operation type). */
export const POL_PREFIXES = {
  operating: 'operating.podopslifecycle.kusionstack.io',
  operationType: 'operation-type.podopslifecycle.kusionstack.io',
  preCheck: 'pre-check.podopslifecycle.kusionstack.io',
  preChecked: 'pre-checked.podopslifecycle.kusionstack.io',
  preparing: 'preparing.podopslifecycle.kusionstack.io',
  operate: 'operate.podopslifecycle.kusionstack.io',
  operated: 'operated.podopslifecycle.kusionstack.io',
  doneOperationType: 'done-operation-type.podopslifecycle.kusionstack.io',
  postCheck: 'post-check.podopslifecycle.kusionstack.io',
  postChecked: 'post-checked.podopslifecycle.kusionstack.io',
  completing: 'completing.podopslifecycle.kusionstack.io',
  undoOperationType: 'undo-operation-type.podopslifecycle.kusionstack.io',
  /** Keyed by operation type, not by id. */
  operationPermission: 'operation-permission.podopslifecycle.kusionstack.io',
} as const;
export type PolPrefixName = keyof typeof POL_PREFIXES;
export type PolPrefix = (typeof POL_PREFIXES)[PolPrefixName];

/** The well-known per-id prefix list W used by undo clean-up, the label-format check and id grouping: every per-id prefix except operation-permission. */
export const POL_PER_ID_PREFIXES: readonly PolPrefix[] = [
  POL_PREFIXES.operating,
  POL_PREFIXES.operationType,
  POL_PREFIXES.preCheck,
  POL_PREFIXES.preChecked,
  POL_PREFIXES.preparing,
  POL_PREFIXES.operate,
  POL_PREFIXES.operated,
  POL_PREFIXES.doneOperationType,
  POL_PREFIXES.postCheck,
  POL_PREFIXES.postChecked,
  POL_PREFIXES.completing,
  POL_PREFIXES.undoOperationType,
];

/** Prefixes whose suffixes make up a pod's set of lifecycle ids (operating, operate, operated). */
export const POL_ID_SOURCE_PREFIXES: readonly PolPrefix[] = [
  POL_PREFIXES.operating,
  POL_PREFIXES.operate,
  POL_PREFIXES.operated,
];

/** Global (id-less) labels. */
export const POL_LABELS = {
  serviceAvailable: 'podopslifecycle.kusionstack.io/service-available',
  preparingToDelete: 'podopslifecycle.kusionstack.io/preparing-to-delete',
  stayOffline: 'podopslifecycle.kusionstack.io/stay-offline',
  creating: 'podopslifecycle.kusionstack.io/creating',
  completing: 'podopslifecycle.kusionstack.io/completing',
  /** Declared by Kuperator, written by nobody; listed so nobody confuses them with per-id keys. */
  preChecking: 'podopslifecycle.kusionstack.io/pre-checking',
  preparing: 'podopslifecycle.kusionstack.io/preparing',
  operating: 'podopslifecycle.kusionstack.io/operating',
  postChecking: 'podopslifecycle.kusionstack.io/post-checking',
} as const;

/**
 * The suite's own printer-friendly summary (not a KusionStack key, hence our domain): the pod's
 * lifecycle phase, kept current by the mutating webhook on every write, so
 * `kubectl get pods -L podopslifecycle.cloneset-suite.io/phase` shows it in a PHASE column.
 */
export const POL_PHASE_LABEL = 'podopslifecycle.cloneset-suite.io/phase';

export const POL_ANNOTATIONS = {
  /** JSON `{"expectedFinalizers":{"<key>":"<finalizer>"}}`. */
  availableConditions: 'pod.kusionstack.io/available-conditions',
} as const;

/** Finalizers with this prefix, owned by cooperation controllers, block preparing -> operate. */
export const POL_PROTECTION_FINALIZER_PREFIX = 'prot.podopslifecycle.kusionstack.io/';

/**
 * The built-in traffic cooperation (EndpointSlices of the Services selecting a controlled pod):
 * its protection finalizer, held while an EndpointSlice lists the pod as ready, and the opt-out
 * annotation (value "disabled", on a pod or on a Service) in the suite's own domain.
 */
export const POL_TRAFFIC_FINALIZER = 'prot.podopslifecycle.kusionstack.io/endpointslice';
export const POL_TRAFFIC_OPT_OUT_ANNOTATION = 'podopslifecycle.cloneset-suite.io/traffic-cooperation';
export const POL_TRAFFIC_OPT_OUT_VALUE = 'disabled';

/** Readiness gate and pod condition type driven by the lifecycle controller. */
export const POL_SERVICE_READY_GATE = 'pod.kusionstack.io/service-ready';
export const POL_SERVICE_READY_MESSAGE = 'updated by PodOpsLifecycle';

/** Lifecycle ids and operation types the suite itself uses (README, CloneSet under PodOpsLifecycle). */
export const POL_CLONESET_ID = 'cloneset';
export const POL_OPERATION_TYPES = {
  update: 'update',
  scaleIn: 'scale-in',
  delete: 'delete',
  replace: 'Replace',
  restart: 'Restart',
} as const;

/** `<prefix>/<id>`. */
export function polKey(prefix: PolPrefix, id: string): string {
  return `${prefix}/${id}`;
}

export interface ParsedPolKey {
  prefix: PolPrefix;
  /** The id, or the operation type for operation-permission keys. */
  id: string;
}

const KNOWN_PREFIXES = new Set<string>(Object.values(POL_PREFIXES));

/**
 * Splits a per-id key. Returns undefined for keys of no known prefix; a known prefix without a
 * `/<id>` part (e.g. a bare `operating.podopslifecycle.kusionstack.io`) is an error upstream, so
 * it is reported with `invalid: true`.
 */
export function parsePolKey(key: string): ParsedPolKey | { invalid: true; prefix: PolPrefix } | undefined {
  const slash = key.indexOf('/');
  const head = slash === -1 ? key : key.slice(0, slash);
  if (!KNOWN_PREFIXES.has(head)) return undefined;
  const prefix = head as PolPrefix;
  const id = slash === -1 ? '' : key.slice(slash + 1);
  if (id === '') return { invalid: true, prefix };
  return { prefix, id };
}

/** The sorted set of lifecycle ids on a pod: suffixes of operating/operate/operated keys. */
export function lifecycleIds(labels: Readonly<Record<string, string>> | undefined): string[] {
  const ids = new Set<string>();
  for (const key of Object.keys(labels ?? {})) {
    const parsed = parsePolKey(key);
    if (parsed && !('invalid' in parsed) && POL_ID_SOURCE_PREFIXES.includes(parsed.prefix)) ids.add(parsed.id);
  }
  return [...ids].sort();
}

const NANOS_PER_MILLI = 1_000_000n;

/** Unix time in nanoseconds as a decimal string, e.g. `1717505885197871195`. */
export function nanoTimestamp(at: Date | number | bigint = Date.now()): string {
  if (typeof at === 'bigint') return at.toString();
  const millis = typeof at === 'number' ? at : at.getTime();
  if (!Number.isFinite(millis)) throw new RangeError(`invalid time: ${String(at)}`);
  return (BigInt(Math.trunc(millis)) * NANOS_PER_MILLI).toString();
}

/** Parses a nanosecond timestamp label value; undefined when it is not a decimal integer. */
export function parseNanoTimestamp(value: string | undefined): bigint | undefined {
  if (value === undefined || !/^-?[0-9]{1,20}$/.test(value)) return undefined;
  return BigInt(value);
}

/** The Date (millisecond precision) of a nanosecond timestamp, or undefined if unparsable. */
export function nanoTimestampToDate(value: string | undefined): Date | undefined {
  const ns = parseNanoTimestamp(value);
  return ns === undefined ? undefined : new Date(Number(ns / NANOS_PER_MILLI));
}
