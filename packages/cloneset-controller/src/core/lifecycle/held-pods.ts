// How a list of held pods reads in a condition or an Event: the count, then the names, capped
// so a large CloneSet does not write a status message of thousands of names.
const NAMES_SHOWN = 10;

export function describeHeldPods(names: readonly string[]): string {
  const sorted = [...names].sort();
  const shown = sorted.slice(0, NAMES_SHOWN).join(', ');
  const more = sorted.length > NAMES_SHOWN ? ` and ${sorted.length - NAMES_SHOWN} more` : '';
  return `${sorted.length} pod(s): ${shown}${more}`;
}
