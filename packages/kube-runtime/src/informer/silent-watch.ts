// How a watch restarted for silence is reported. An idle resource's watch goes silent routinely
// (no change to send, and not every apiserver path sends the minute bookmark), so the restart
// itself is logged at debug, without a stack. What makes a silence worth a warning is a watch
// that stopped delivering while objects changed: the watch resumed from the last resourceVersion
// replays at once what the silent one should have delivered (or, when that version has been
// compacted, the relist finds it), so changes arriving right after the restart were missed.

export type LogLevel = 'debug' | 'warn';

/**
 * How long after a silent watch is resumed the changes it delivers count as missed: the
 * apiserver sends the events after the requested resourceVersion in its first response chunks,
 * and a loaded apiserver may take a few seconds to answer the watch at all. A genuine change in
 * that window on an idle resource costs one needless warning, nothing more.
 */
export const MISSED_CHANGES_WINDOW_MS = 5_000;

/** The level of the line that follows a silent watch's restart, once its catch-up is known. */
export function silentWatchVerdict(missedChanges: number): { level: LogLevel; msg: string } {
  if (missedChanges > 0) return { level: 'warn', msg: 'watch went silent while objects changed; the restarted watch delivered what it had missed' };
  return { level: 'debug', msg: 'idle watch resumed; it had missed nothing' };
}

/** The reason a reflector aborts a watch with when its watchdog fires (told apart from an error). */
export class SilentWatchAbort extends Error {
  override name = 'SilentWatchAbort';
}
