// Keys kubectl writes that the suite reads.

/** Pod template: the time of `kubectl rollout restart` (RFC 3339); a new value asks for every pod to restart. */
export const KUBECTL_RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';
