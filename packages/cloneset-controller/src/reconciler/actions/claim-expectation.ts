// Scale expectations hold pod names and PVC names in one set per CloneSet (OpenKruise's scale expectations); a PVC's entry
// carries a prefix no pod name can have, so a claim and a pod never satisfy each other.
export const claimExpectation = (pvcName: string): string => `pvc/${pvcName}`;
