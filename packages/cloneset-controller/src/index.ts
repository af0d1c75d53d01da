// Public face of the CloneSet functional core: pure planners and their data types.
export * from './core/keys.ts';
export type * from './core/types.ts';
export * from './core/pod-state.ts';
export * from './core/revisions.ts';
export { normaliseTemplate, semanticallyEqual, canonicalQuantity } from './core/canonical.ts';
export { selectorMatches, selectorToString } from './core/selector.ts';
