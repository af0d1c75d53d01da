// Feature gates with the anchors' names and defaults (but PreparingUpdateAsUpdate, on here), set as
// in Kubernetes:
// --feature-gates=CloneSetShortHash=true,TemplateNoDefaults=false.
import { FEATURE_GATE_DEFAULTS, FEATURE_GATE_NAMES, type FeatureGateName } from '@cloneset-suite/cloneset-controller';
import { ValueError, parseBool, parsePairs, type RawValue } from './values.ts';

// The table lives with the CloneSet controller, so kubectl-cloneset reads the same defaults.
export { FEATURE_GATE_DEFAULTS, FEATURE_GATE_NAMES, type FeatureGateName };

export type FeatureGates = Record<FeatureGateName, boolean>;

function isGateName(name: string): name is FeatureGateName {
  return Object.hasOwn(FEATURE_GATE_DEFAULTS, name);
}

export function parseFeatureGates(raw: RawValue): FeatureGates {
  const gates: FeatureGates = { ...FEATURE_GATE_DEFAULTS };
  for (const [name, value] of parsePairs(raw)) {
    if (!isGateName(name)) throw new ValueError(`unknown feature gate "${name}" (known: ${FEATURE_GATE_NAMES.join(', ')})`);
    try {
      gates[name] = parseBool(value);
    } catch {
      throw new ValueError(`feature gate ${name} must be true or false, got "${value}"`);
    }
  }
  return gates;
}

export function formatFeatureGates(gates: FeatureGates): string {
  return FEATURE_GATE_NAMES.filter((n) => gates[n] !== FEATURE_GATE_DEFAULTS[n])
    .map((n) => `${n}=${gates[n]}`)
    .join(',');
}
