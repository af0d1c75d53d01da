// Reading Kuperator's label protocol: a pod's labels grouped per lifecycle id, the
// per-type permission labels, and the keys that break the `<prefix>/<id>` format.
import { POL_LABELS, POL_PREFIXES, parsePolKey, type PolPrefix, type PolPrefixName } from '@cloneset-suite/api-types';

export type Labels = Readonly<Record<string, string>>;

/** The per-id label values of one id, by prefix name (operationPermission never appears here). */
export type IdLabels = Partial<Record<Exclude<PolPrefixName, 'operationPermission'>, string>>;

export interface LifecycleView {
  /** The lifecycle ids: suffixes of operating/operate/operated keys, sorted. */
  ids: string[];
  /** Every id that has any per-id label (a superset of ids: e.g. a lone undo or pre-check label). */
  labelsById: Map<string, IdLabels>;
  /** operation-permission labels: type -> timestamp. */
  permissions: Map<string, string>;
  /** Keys of a known prefix with no `/<id>` part (the validating webhook refuses them: "invalid label"). */
  invalidKeys: string[];
}

const NAME_OF_PREFIX = new Map<PolPrefix, PolPrefixName>(
  (Object.entries(POL_PREFIXES) as [PolPrefixName, PolPrefix][]).map(([name, prefix]) => [prefix, name]),
);
const ID_SOURCES: ReadonlySet<PolPrefixName> = new Set(['operating', 'operate', 'operated']);

export function readLifecycle(labels: Labels | undefined): LifecycleView {
  const labelsById = new Map<string, IdLabels>();
  const permissions = new Map<string, string>();
  const invalidKeys: string[] = [];
  const ids = new Set<string>();
  for (const [key, value] of Object.entries(labels ?? {})) {
    const parsed = parsePolKey(key);
    if (!parsed) continue;
    if ('invalid' in parsed) {
      invalidKeys.push(key);
      continue;
    }
    const name = NAME_OF_PREFIX.get(parsed.prefix)!;
    if (name === 'operationPermission') {
      permissions.set(parsed.id, value);
      continue;
    }
    const entry = labelsById.get(parsed.id) ?? {};
    entry[name] = value;
    labelsById.set(parsed.id, entry);
    if (ID_SOURCES.has(name)) ids.add(parsed.id);
  }
  return { ids: [...ids].sort(), labelsById, permissions, invalidKeys: invalidKeys.sort() };
}

/** The type an id is counted under: operation-type, else done-operation-type. */
export function typeOf(labels: IdLabels | undefined): string | undefined {
  return labels?.operationType ?? labels?.doneOperationType;
}

/**
 * Whether a label value is a Unix-nanosecond timestamp as the protocol writes them: 19
 * digits, 2001 to 2286. A hand-written `1` or `true` is not one, even where it would parse.
 */
export function isNanoTimestamp(value: string): boolean {
  return /^[1-9][0-9]{18}$/.test(value);
}

/** `<prefix>/<id>` for a prefix name. */
export function keyOf(name: PolPrefixName, id: string): string {
  return `${POL_PREFIXES[name]}/${id}`;
}

/** The per-id phase a pod's labels put an id in (Kuperator's per-id state machine), in the words Events and docs use. */
export type IdPhase = 'PreCheck' | 'Preparing' | 'Operating' | 'Operated' | 'PostCheck' | 'Completing';

export function phaseOf(l: IdLabels): IdPhase | undefined {
  if (l.completing !== undefined) return 'Completing';
  if (l.postCheck !== undefined || l.postChecked !== undefined) return 'PostCheck';
  if (l.operated !== undefined) return 'PostCheck';
  if (l.operate !== undefined) return l.operating !== undefined ? 'Operating' : 'Operated';
  if (l.preparing !== undefined) return 'Preparing';
  if (l.operating !== undefined) return 'PreCheck';
  return undefined;
}

/**
 * The pod-level phase shown by the phase label: its least advanced id, else online or not.
 * `NoOperationType` is PreCheck for an id that has `operating/<id>` but no `operation-type/<id>`:
 * it cannot pass PreCheck until the type is written.
 */
export type PodPhase = IdPhase | 'NoOperationType' | 'ServiceAvailable' | 'Unavailable';

const PHASE_ORDER: readonly IdPhase[] = ['PreCheck', 'Preparing', 'Operating', 'Operated', 'PostCheck', 'Completing'];

/** An id waiting in PreCheck for its operation type, which it needs to pass. */
export function lacksOperationType(l: IdLabels): boolean {
  return phaseOf(l) === 'PreCheck' && l.operationType === undefined;
}

export function podPhase(labels: Labels | undefined): PodPhase {
  const view = readLifecycle(labels);
  const of = (id: string): IdLabels => view.labelsById.get(id) ?? {};
  if (view.ids.some((id) => lacksOperationType(of(id)))) return 'NoOperationType';
  const phases = view.ids.map((id) => phaseOf(of(id))).filter((p): p is IdPhase => p !== undefined);
  if (phases.length > 0) return PHASE_ORDER.find((p) => phases.includes(p))!;
  return labels?.[POL_LABELS.serviceAvailable] !== undefined ? 'ServiceAvailable' : 'Unavailable';
}
