// Public face of @cloneset-suite/kubectl-plugin: the CLI entry function and its pure parts.
export { main } from './cli.ts';
export { parseCommand, USAGE, type Command } from './args.ts';
export { rolloutState, type RolloutState } from './core/rollout-status.ts';
export { historyOf, historyTable, revisionDetail, undoDecision, type HistoryEntry, type UndoDecision } from './core/history.ts';
export { podsTable, podRow, type PodRow } from './core/pods-table.ts';
