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
