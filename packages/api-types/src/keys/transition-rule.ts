// PodTransitionRule keys: the per-PTR detail annotation on pods, the skip annotation, the finalizer.

/** Pod annotation `detail.podtransitionrule.kusionstack.io/<ptrName>`: the pod's last result. */
export const PTR_DETAIL_ANNOTATION_PREFIX = 'detail.podtransitionrule.kusionstack.io/';

/** Pod annotation: JSON `{"skipRules":["<ruleName>",...]}` of rules that skip this pod. */
export const PTR_SKIP_RULE_CONDITIONS_ANNOTATION = 'podtransitionrule.kusionstack.io/skip-rule-conditions';

/** Finalizer on PodTransitionRule objects, the controller's clean-up guard. */
export const PTR_PROTECTION_FINALIZER = 'finalizer.operating.kusionstack.io/protected';

/** Default query key when polling a webhook task. */
export const PTR_DEFAULT_POLL_QUERY_KEY = 'task-id';

export function ptrDetailAnnotation(ptrName: string): string {
  return PTR_DETAIL_ANNOTATION_PREFIX + ptrName;
}

/** The PodTransitionRule name of a detail annotation key, or undefined for any other key. */
export function parsePtrDetailAnnotation(key: string): string | undefined {
  if (!key.startsWith(PTR_DETAIL_ANNOTATION_PREFIX)) return undefined;
  const name = key.slice(PTR_DETAIL_ANNOTATION_PREFIX.length);
  return name === '' ? undefined : name;
}

export interface PtrRejection {
  ruleName: string | undefined;
  reason: string | undefined;
}

/** One detail annotation read: the rule's last result on the pod, or that it cannot be read. */
export type PtrDetailReading =
  | { transitionRule: string; readable: false }
  | { transitionRule: string; readable: true; stage: string | undefined; passed: boolean | undefined; rejections: PtrRejection[] };

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Every `detail.podtransitionrule.kusionstack.io/<ptr>` annotation of a pod, read defensively (users can write them). */
export function ptrDetailsOf(annotations: Readonly<Record<string, string>> | undefined): PtrDetailReading[] {
  const out: PtrDetailReading[] = [];
  for (const [key, value] of Object.entries(annotations ?? {})) {
    const transitionRule = parsePtrDetailAnnotation(key);
    if (transitionRule === undefined) continue;
    let detail: unknown;
    try {
      detail = JSON.parse(value);
    } catch {
      detail = undefined;
    }
    if (detail === null || typeof detail !== 'object' || Array.isArray(detail)) {
      out.push({ transitionRule, readable: false });
      continue;
    }
    const d = detail as { stage?: unknown; passed?: unknown; rejectInfo?: unknown };
    const rejects: unknown[] = Array.isArray(d.rejectInfo) ? (d.rejectInfo as unknown[]) : [];
    out.push({
      transitionRule,
      readable: true,
      stage: text(d.stage),
      passed: typeof d.passed === 'boolean' ? d.passed : undefined,
      rejections: rejects.map((r) => {
        const o = r !== null && typeof r === 'object' ? (r as { ruleName?: unknown; reason?: unknown }) : {};
        return { ruleName: text(o.ruleName), reason: text(o.reason) };
      }),
    });
  }
  return out;
}
