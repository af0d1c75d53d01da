// PodTransitionRule admission validation: Kuperator's rules, plus the suite's own: maxUnavailableValue
// 0 / "0%" refused; a webhook URL is checked for syntax and scheme but never dialled (a probe inside
// admission makes `kubectl apply` flaky); a caBundle must parse. Pure, no network.
import { X509Certificate } from 'node:crypto';
import { FieldPath, fieldError, type FieldError } from '../field-errors.ts';
import { tryParseIntOrPercent } from '../intstr.ts';
import type { IntOrString, LabelSelector } from '../meta.ts';
import { dns1123SubdomainErrors } from '../names.ts';
import { validateLabelSelector } from '../selector.ts';
import {
  PTR_MAX_CA_BUNDLE_BYTES,
  PTR_MAX_PARAMETER_VALUE_BYTES,
  PTR_MAX_POLL_TIMEOUT_SECONDS,
  PTR_MAX_WEBHOOK_PARAMETERS,
  type AvailablePolicy, type ClientConfig,
  type Parameter,
  type PodTransitionRule,
  type PollConfig,
  type TransitionRule,
} from './schema.ts';

/** caBundle values that mean "no CA bundle" upstream (empty, or a base64 newline). */
const EMPTY_CA_BUNDLES = new Set(['', 'Cg==']);

function requiredSelector(selector: LabelSelector | undefined, path: FieldPath, errs: FieldError[]): void {
  if (selector === undefined || selector === null) errs.push(fieldError.required(path.toString()));
  else errs.push(...validateLabelSelector(selector, path));
}

function validateUrl(url: unknown, path: FieldPath, errs: FieldError[]): void {
  if (typeof url !== 'string' || url === '') {
    errs.push(fieldError.required(path.toString()));
    return;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    errs.push(fieldError.invalid(path.toString(), url, 'must be an absolute URL'));
    return;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    errs.push(fieldError.invalid(path.toString(), url, 'scheme must be http or https'));
  } else if (parsed.hostname === '') {
    errs.push(fieldError.invalid(path.toString(), url, 'must have a host'));
  } else if (parsed.username !== '' || parsed.password !== '') {
    // As the apiserver says of admission webhook URLs; it also hides the real host from readers.
    errs.push(fieldError.invalid(path.toString(), url, 'user information is not permitted in the URL'));
  }
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Error text when a caBundle is set but is not a bundle of PEM certificates (anything but
 * whitespace between or around the blocks is refused: it would only make each bundle a new one),
 * or is larger than PTR_MAX_CA_BUNDLE_BYTES decoded; undefined when fine.
 */
export function caBundleProblem(caBundle: string | undefined): string | undefined {
  if (caBundle === undefined || EMPTY_CA_BUNDLES.has(caBundle)) return undefined;
  if (caBundle.length > Math.ceil(PTR_MAX_CA_BUNDLE_BYTES / 3) * 4) return `caBundle must be at most ${PTR_MAX_CA_BUNDLE_BYTES} bytes decoded`;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(caBundle) || caBundle.length % 4 !== 0) return 'caBundle must be base64 encoded';
  const pem = Buffer.from(caBundle, 'base64').toString('utf8');
  const blocks = pem.match(PEM_CERTIFICATE);
  if (!blocks) return 'caBundle does not contain a PEM certificate';
  if (pem.replace(PEM_CERTIFICATE, '').trim() !== '') return 'caBundle must hold only PEM certificates (nothing but whitespace outside the BEGIN/END CERTIFICATE blocks)';
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (error) {
      return `caBundle holds an invalid certificate: ${(error as Error).message}`;
    }
  }
  return undefined;
}

function validateCaBundle(caBundle: string | undefined, path: FieldPath, errs: FieldError[]): void {
  const problem = caBundleProblem(caBundle);
  // The bundle itself is long and unreadable in an error: name the field, not the value.
  if (problem !== undefined) errs.push(fieldError.invalid(path.toString(), '<caBundle>', problem));
}

function positive(value: number | undefined, path: FieldPath, errs: FieldError[]): void {
  if (value === undefined || value === null) return;
  if (!Number.isInteger(value) || value < 1) errs.push(fieldError.invalid(path.toString(), value, 'must be greater than 0'));
}

function intOrPercent(value: IntOrString | undefined, path: FieldPath, errs: FieldError[], allowZero: boolean): void {
  if (value === undefined || value === null) return;
  const parsed = tryParseIntOrPercent(value);
  if (parsed === undefined) errs.push(fieldError.invalid(path.toString(), value, 'must be an integer or percentage (e.g \'5%\')'));
  else if (parsed.value < 0) errs.push(fieldError.invalid(path.toString(), value, 'must be greater than or equal to 0'));
  else if (!allowZero && parsed.value === 0) errs.push(fieldError.invalid(path.toString(), value, 'can not be 0'));
}

function validateAvailablePolicy(policy: AvailablePolicy, path: FieldPath, errs: FieldError[]): void {
  if (policy.maxUnavailableValue === undefined && policy.minAvailableValue === undefined) {
    errs.push(fieldError.required(path.toString(), 'one of maxUnavailableValue or minAvailableValue is required'));
  }
  intOrPercent(policy.maxUnavailableValue, path.child('maxUnavailableValue'), errs, false);
  intOrPercent(policy.minAvailableValue, path.child('minAvailableValue'), errs, true);
}

function validatePoll(poll: PollConfig, path: FieldPath, errs: FieldError[]): void {
  validateUrl(poll.url, path.child('url'), errs);
  validateCaBundle(poll.caBundle, path.child('caBundle'), errs);
  positive(poll.intervalSeconds, path.child('intervalSeconds'), errs);
  positive(poll.timeoutSeconds, path.child('timeoutSeconds'), errs);
  const timeout = poll.timeoutSeconds;
  if (typeof timeout === 'number' && timeout > PTR_MAX_POLL_TIMEOUT_SECONDS) {
    errs.push(fieldError.invalid(path.child('timeoutSeconds').toString(), timeout, `must be less than or equal to ${PTR_MAX_POLL_TIMEOUT_SECONDS} (24h)`));
  }
}

function validateClientConfig(config: ClientConfig | undefined, path: FieldPath, errs: FieldError[]): void {
  if (config === undefined || config === null) {
    errs.push(fieldError.required(path.toString()));
    return;
  }
  validateUrl(config.url, path.child('url'), errs);
  validateCaBundle(config.caBundle, path.child('caBundle'), errs);
  if (config.poll) validatePoll(config.poll, path.child('poll'), errs);
}

function validateParameters(parameters: readonly Parameter[] | undefined, path: FieldPath, errs: FieldError[]): void {
  if (parameters === undefined || parameters === null) return;
  if (parameters.length > PTR_MAX_WEBHOOK_PARAMETERS) {
    errs.push(fieldError.invalid(path.toString(), parameters.length, `must have at most ${PTR_MAX_WEBHOOK_PARAMETERS} items`));
  }
  parameters.forEach((p: Parameter | undefined, i) => {
    const value = p?.value;
    if (typeof value === 'string' && Buffer.byteLength(value) > PTR_MAX_PARAMETER_VALUE_BYTES) {
      errs.push(fieldError.invalid(path.index(i).child('value').toString(), '<value>', `may not be more than ${PTR_MAX_PARAMETER_VALUE_BYTES} bytes`));
    }
  });
}

function validateRule(rule: TransitionRule, path: FieldPath, errs: FieldError[]): void {
  if (typeof rule.name !== 'string' || rule.name === '') errs.push(fieldError.required(path.child('name').toString(), 'rule name is required'));
  if (rule.filter?.labelSelector) errs.push(...validateLabelSelector(rule.filter.labelSelector, path.child('filter').child('labelSelector')));
  if (rule.availablePolicy) validateAvailablePolicy(rule.availablePolicy, path.child('availablePolicy'), errs);
  if (rule.labelCheck) requiredSelector(rule.labelCheck.requires, path.child('labelCheck').child('requires'), errs);
  if (rule.webhook) {
    validateClientConfig(rule.webhook.clientConfig, path.child('webhook').child('clientConfig'), errs);
    validateParameters(rule.webhook.parameters, path.child('webhook').child('parameters'), errs);
  }
}

/** Field errors of a PodTransitionRule on CREATE or UPDATE (after defaultPodTransitionRule). */
export function validatePodTransitionRule(ptr: PodTransitionRule): FieldError[] {
  const errs: FieldError[] = [];
  const name = ptr.metadata?.name;
  if (typeof name === 'string' && name !== '') {
    for (const m of dns1123SubdomainErrors(name)) errs.push(fieldError.invalid('metadata.name', name, m));
  }
  const spec = ptr.spec as PodTransitionRule['spec'] | undefined;
  if (spec === undefined || spec === null) return [...errs, fieldError.required('spec')];
  const path = new FieldPath('spec');
  requiredSelector(spec.selector, path.child('selector'), errs);
  (spec.rules ?? []).forEach((rule, i) => validateRule(rule, path.child('rules').index(i), errs));
  return errs;
}
