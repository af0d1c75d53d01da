// `--feature-gates=A=true,B=false`: the plugin cannot see the manager's flags, so `plan` takes
// the same flag, with the same names and defaults (the CloneSet controller's table), and plans
// as a manager started with it does. Booleans as Go's ParseBool reads them, as the manager does.
import { FEATURE_GATE_DEFAULTS, FEATURE_GATE_NAMES, type FeatureGateName } from '@cloneset-suite/cloneset-controller';
import { UsageError } from './usage-error.ts';

export type FeatureGateSettings = Record<FeatureGateName, boolean>;

const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = { true: true, t: true, '1': true, false: false, f: false, '0': false };

const isGate = (name: string): name is FeatureGateName => (FEATURE_GATE_NAMES as readonly string[]).includes(name);

export function parseFeatureGates(flag: string | undefined): FeatureGateSettings {
  const gates: FeatureGateSettings = { ...FEATURE_GATE_DEFAULTS };
  for (const item of (flag ?? '').split(',')) {
    if (item.trim() === '') continue;
    const [name = '', value, ...extra] = item.split('=').map((s) => s.trim());
    if (value === undefined || extra.length > 0) throw new UsageError(`invalid --feature-gates "${item}": expected NAME=true|false`);
    if (!isGate(name)) throw new UsageError(`unknown feature gate "${name}" (known: ${FEATURE_GATE_NAMES.join(', ')})`);
    const on = BOOLEAN_WORDS[value.toLowerCase()];
    if (on === undefined) throw new UsageError(`feature gate ${name} must be true or false, got "${value}"`);
    gates[name] = on;
  }
  return gates;
}
