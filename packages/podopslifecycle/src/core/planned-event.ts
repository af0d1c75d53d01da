// An Event a planner decides to record on the pod (the shell records it): shared by the lifecycle,
// phase-change and traffic planners, so none of them imports another for it.
export interface PlannedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  action: string;
  note: string;
}
