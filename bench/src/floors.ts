// Writes per pod that the CloneSet cannot go below without breaking OpenKruise compatibility
// (OpenKruise's CloneSet scale-out, pod refresh, in-place update and lifecycle state table),
// against the targets:
// the report says which targets the specification rules out, and by how much.

/** Per-workload writes shared by its pods: one ControllerRevision and at least one CloneSet /status. */
const PER_WORKLOAD_WRITES = 2;
/** client-go folding: the first 9 distinct notes get their own Event, then one combined Event. */
const FOLDED_EVENT_CREATES = 10;

export interface WriteFloor {
  what: string;
  target: number;
  perPod: readonly string[];
  /** Writes per pod, shared writes spread over the N pods. */
  floor: number;
}

/** Events of N similar operations once folded: min(N, 10) creates. */
const foldedEvents = (n: number): number => Math.min(n, FOLDED_EVENT_CREATES);

export function writeFloors(scaleOutPods: number, inPlacePods: number): WriteFloor[] {
  const scaleOutPerPod = [
    'the pod create',
    'the /status write setting its InPlaceUpdateReady readiness-gate condition True (the refresh that also makes freshly created pods Ready)',
    'the label patch PreparingNormal → Normal once it is scheduled (OpenKruise v1.9 waits for spec.nodeName)',
  ];
  const inPlacePerPod = [
    'the /status write setting InPlaceUpdateReady False before the update',
    'the pod update: revision labels, state Updating, inplace-update-state, image',
    'the /status write setting InPlaceUpdateReady True once the containers run the new image',
    'the label patch Updating → Normal',
  ];
  return [
    {
      what: `scale-out of ${scaleOutPods} pods`,
      target: 2.5,
      perPod: scaleOutPerPod,
      floor: scaleOutPerPod.length + (PER_WORKLOAD_WRITES + foldedEvents(scaleOutPods)) / scaleOutPods,
    },
    {
      what: `in-place update of ${inPlacePods} pods`,
      target: 3,
      perPod: inPlacePerPod,
      floor: inPlacePerPod.length + (PER_WORKLOAD_WRITES + foldedEvents(inPlacePods)) / inPlacePods,
    },
  ];
}

/** The report's lines: each target the floor rules out, with the floor and why. */
export function floorNotes(floors: readonly WriteFloor[]): string[] {
  return floors.map((f) => {
    const verdict = f.floor > f.target ? `cannot meet the issue's target of ≤ ${f.target} writes per pod by specification` : `can meet the issue's target of ≤ ${f.target} writes per pod`;
    return `${f.what[0]!.toUpperCase()}${f.what.slice(1)} ${verdict}: OpenKruise's behaviour costs ${f.perPod.length} writes per pod (${f.perPod.join('; ')}), plus per workload a ControllerRevision, at least one CloneSet /status write and ${FOLDED_EVENT_CREATES} folded Events at most, so the floor is ${f.floor.toFixed(2)} writes per pod. Merging any two of them would change what a watcher of the pod sees (a status write and a label patch go to different subresources; the Normal label must wait for scheduling).`;
  });
}
