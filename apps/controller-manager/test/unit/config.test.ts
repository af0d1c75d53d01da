import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type LoadOptions } from '../../src/config/load.ts';
import { FLAGS, envName } from '../../src/config/flags.ts';
import { helpText } from '../../src/config/help.ts';
import { enabledControllers } from '../../src/config/controllers-flag.ts';

const known = ['cloneset', 'podtransitionrule'];

function load(argv: string[], extra: Partial<LoadOptions> = {}) {
  const r = loadConfig({ argv, env: {}, knownControllers: known, inClusterNamespace: () => undefined, ...extra });
  if (r.kind !== 'config') throw new Error('expected a config');
  return r.config;
}

function error(argv: string[], extra: Partial<LoadOptions> = {}): string {
  try {
    load(argv, extra);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('defaults', () => {
  it('match the documented ones', () => {
    const c = load([]);
    expect(c.metricsBindAddress).toEqual({ host: '', port: 8080 });
    expect(c.healthProbeBindAddress).toEqual({ host: '', port: 8081 });
    expect(c.webhookPort).toBe(9443);
    expect(c.leaderElect).toBe(true);
    expect(c.leaderElectionNamespace).toBe('default');
    expect(c.webhookServiceNamespace).toBe('default');
    expect(c.leaderElectionLeaseDurationMs).toBe(15_000);
    expect(c.kubeApiRequestTimeoutMs).toBe(60_000);
    expect(c.controllers).toEqual(['*']);
    expect(c.featureGates.CloneSetShortHash).toBe(false);
    expect(c.namespace).toBe('');
  });

  it('turns PreparingUpdateAsUpdate on (OpenKruise: off), and its name still turns it off', () => {
    expect(load([]).featureGates.PreparingUpdateAsUpdate).toBe(true);
    expect(load(['--feature-gates=PreparingUpdateAsUpdate=false']).featureGates.PreparingUpdateAsUpdate).toBe(false);
  });

  it('takes the lease namespace from POD_NAMESPACE or the service-account mount', () => {
    expect(load([], { env: { POD_NAMESPACE: 'from-env' } }).leaderElectionNamespace).toBe('from-env');
    expect(load([], { inClusterNamespace: () => 'from-mount' }).leaderElectionNamespace).toBe('from-mount');
    expect(load(['--leader-election-namespace=explicit'], { inClusterNamespace: () => 'from-mount' }).webhookServiceNamespace).toBe('explicit');
  });
});

describe('flag syntax', () => {
  it('accepts --flag=value, --flag value, bare booleans and =false', () => {
    const c = load(['--namespace', 'team-a', '--kube-api-qps=12.5', '--leader-elect=false', '--log-level', 'debug']);
    expect(c.namespace).toBe('team-a');
    expect(c.kubeApiQps).toBe(12.5);
    expect(c.leaderElect).toBe(false);
    expect(c.logLevel).toBe('debug');
    expect(load(['--leader-elect']).leaderElect).toBe(true);
    expect(load(['--kube-api-request-timeout=5s']).kubeApiRequestTimeoutMs).toBe(5_000);
  });

  it('parses addresses, durations, sizes, URLs and lists', () => {
    const c = load([
      '--metrics-bind-address=127.0.0.1:9090',
      '--health-probe-bind-address=0',
      '--leader-election-lease-duration=1m30s',
      '--leader-election-renew-deadline=20s',
      '--webhook-max-body-size=1Mi',
      '--webhook-url-base=https://127.0.0.1:9443/',
      '--transition-rule-webhook-allowed-prefixes=https://a.example/,http://b.internal:8080/hooks',
    ]);
    expect(c.metricsBindAddress).toEqual({ host: '127.0.0.1', port: 9090 });
    expect(c.healthProbeBindAddress).toBeUndefined();
    expect(c.leaderElectionLeaseDurationMs).toBe(90_000);
    expect(c.webhookMaxBodyBytes).toBe(1024 * 1024);
    expect(c.webhookUrlBase).toBe('https://127.0.0.1:9443');
    expect(c.transitionRuleWebhookAllowedPrefixes).toEqual(['https://a.example/', 'http://b.internal:8080/hooks']);
    expect(c.transitionRuleWebhookAllowLinkLocal).toBe(false);
    expect(load(['--transition-rule-webhook-allow-link-local']).transitionRuleWebhookAllowLinkLocal).toBe(true);
    expect(c.transitionRuleWebhookAllowAddresses).toEqual([]);
    expect(c.transitionRuleWebhookPrivateCidrs).toEqual(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']);
    expect(load(['--transition-rule-webhook-allow-addresses=loopback,cloud-metadata']).transitionRuleWebhookAllowAddresses).toEqual(['loopback', 'cloud-metadata']);
    expect(load(['--transition-rule-webhook-private-cidrs=10.96.0.0/12']).transitionRuleWebhookPrivateCidrs).toEqual(['10.96.0.0/12']);
    expect([c.transitionRuleWebhookMaxConcurrentCalls, c.transitionRuleWebhookMaxConcurrentCallsPerNamespace, c.transitionRuleKubeApiQps, c.transitionRuleKubeApiBurst]).toEqual([16, 4, 20, 30]);
    expect(load(['--transition-rule-webhook-max-concurrent-calls=32', '--transition-rule-webhook-max-concurrent-calls-per-namespace=2']).transitionRuleWebhookMaxConcurrentCallsPerNamespace).toBe(2);
    expect(load(['--metrics-bind-address=[::1]:8080']).metricsBindAddress).toEqual({ host: '::1', port: 8080 });
  });

  it('parses feature gates and per-controller concurrency', () => {
    const c = load(['--feature-gates=CloneSetShortHash=true,TemplateNoDefaults=false', '--max-concurrent-reconciles=3,cloneset=8']);
    expect(c.featureGates.CloneSetShortHash).toBe(true);
    expect(c.featureGates.TemplateNoDefaults).toBe(false);
    expect(c.maxConcurrentReconciles).toEqual({ default: 3, perController: { cloneset: 8 } });
  });

  it('runs three workers per controller within a 60 s reconcile deadline by default', () => {
    const c = load([]);
    expect(c.maxConcurrentReconciles).toEqual({ default: 3, perController: {} });
    expect(c.reconcileTimeoutMs).toBe(60_000);
    expect(load(['--reconcile-timeout=15s']).reconcileTimeoutMs).toBe(15_000);
  });

  it('returns help for --help and -h', () => {
    expect(loadConfig({ argv: ['--namespace=x', '--help'], env: {}, knownControllers: known }).kind).toBe('help');
    expect(loadConfig({ argv: ['-h'], env: {}, knownControllers: known }).kind).toBe('help');
  });
});

describe('bad flags and values name the flag', () => {
  it.each([
    [['--bogus'], /unknown flag --bogus/],
    [['positional'], /unexpected argument "positional"/],
    [['--namespace'], /--namespace needs a value/],
    [['--kube-api-qps=abc'], /--kube-api-qps.*must be a number/],
    [['--kube-api-burst=1.5'], /--kube-api-burst.*integer/],
    [['--webhook-port=70000'], /--webhook-port.*between 0 and 65535/],
    [['--transition-rule-webhook-allow-addresses=metadata'], /--transition-rule-webhook-allow-addresses.*"metadata" is not an address class/],
    [['--transition-rule-webhook-private-cidrs=10.0.0.0'], /--transition-rule-webhook-private-cidrs.*not a CIDR/],
    [['--transition-rule-webhook-allowed-prefixes=https://*.example.com'], /--transition-rule-webhook-allowed-prefixes.*no wildcard/],
    [['--metrics-bind-address=8080'], /--metrics-bind-address.*host:port/],
    [['--leader-elect=maybe'], /--leader-elect.*true or false/],
    [['--leader-election-lease-duration=15'], /--leader-election-lease-duration.*duration/],
    [['--log-level=loud'], /--log-level.*one of/],
    [['--feature-gates=Nope=true'], /--feature-gates.*unknown feature gate "Nope"/],
    [['--feature-gates=CloneSetShortHash=yes please'], /--feature-gates.*CloneSetShortHash must be true or false/],
    [['--controllers=*,-nosuch'], /--controllers.*unknown controller "nosuch"/],
    [['--max-concurrent-reconciles=cloneset=0'], /--max-concurrent-reconciles.*cloneset: must be between 1/],
    [['--webhook-url-base=http://127.0.0.1:9443'], /--webhook-url-base.*https/],
    [['--transition-rule-webhook-allowed-prefixes=ftp://x'], /--transition-rule-webhook-allowed-prefixes.*http/],
    [['--transition-rule-webhook-allowed-prefixes=https://hooks.example.com@10.0.0.1'], /--transition-rule-webhook-allowed-prefixes.*must not contain user information/],
    [['--transition-rule-webhook-timeout=10m'], /--transition-rule-webhook-timeout must be between 1ms and 5m/],
    [['--namespace=Not_A_Namespace'], /--namespace.*DNS-1123/],
    [['--leader-election-lease-duration=5s'], /--leader-election-lease-duration must be greater than --leader-election-renew-deadline/],
    [['--leader-election-retry-period=9s'], /renew-deadline must be greater than 1.2/],
    [['--webhook-request-timeout=31s'], /--webhook-request-timeout/],
  ])('%j', (argv, pattern) => {
    expect(error(argv)).toMatch(pattern);
  });

  it('says which environment variable held the bad value', () => {
    expect(error([], { env: { [envName('kube-api-burst')]: 'lots' } })).toMatch(/--kube-api-burst \(environment variable CONTROLLER_MANAGER_KUBE_API_BURST\)/);
  });
});

describe('config file and precedence', () => {
  const files: Record<string, string> = {
    '/etc/cm.yaml': 'namespace: from-file\nkube-api-qps: 7\nleader-elect: false\nfeature-gates:\n  CloneSetShortHash: true\nmax-concurrent-reconciles:\n  cloneset: 4\ncontrollers: ["*", "-podtransitionrule"]\n',
    '/etc/bad-key.yaml': 'namespaces: x\n',
    '/etc/bad-value.yaml': 'kube-api-burst: many\n',
    '/etc/not-a-map.yaml': '- a\n- b\n',
  };
  const readFile = (p: string): string => {
    const text = files[p];
    if (text === undefined) throw new Error('ENOENT: no such file');
    return text;
  };

  it('reads typed YAML values keyed by flag name', () => {
    const c = load(['--config=/etc/cm.yaml'], { readFile });
    expect(c.namespace).toBe('from-file');
    expect(c.kubeApiQps).toBe(7);
    expect(c.leaderElect).toBe(false);
    expect(c.featureGates.CloneSetShortHash).toBe(true);
    expect(c.maxConcurrentReconciles.perController).toEqual({ cloneset: 4 });
    expect(enabledControllers(c.controllers, known.map((name) => ({ name, enabledByDefault: true })))).toEqual(['cloneset']);
  });

  it('lets the environment override the file and flags override both', () => {
    const env = { [envName('config')]: '/etc/cm.yaml', [envName('namespace')]: 'from-env', [envName('kube-api-qps')]: '9' };
    const c = load(['--namespace=from-flag'], { readFile, env });
    expect(c.namespace).toBe('from-flag');
    expect(c.kubeApiQps).toBe(9);
    expect(c.leaderElect).toBe(false);
  });

  it('names unknown keys, bad values, unreadable and malformed files', () => {
    expect(error(['--config=/etc/bad-key.yaml'], { readFile })).toMatch(/unknown key "namespaces"/);
    expect(error(['--config=/etc/bad-value.yaml'], { readFile })).toMatch(/--kube-api-burst \(key "kube-api-burst" of config file \/etc\/bad-value.yaml\)/);
    expect(error(['--config=/etc/missing.yaml'], { readFile })).toMatch(/cannot read config file \/etc\/missing.yaml/);
    expect(error(['--config=/etc/not-a-map.yaml'], { readFile })).toMatch(/must be a YAML map/);
  });
});

describe('controllers selection', () => {
  const registry = [
    { name: 'cloneset', enabledByDefault: true },
    { name: 'podtransitionrule', enabledByDefault: true },
    { name: 'experimental', enabledByDefault: false },
  ];
  it('follows kube-controller-manager semantics', () => {
    expect(enabledControllers(['*'], registry)).toEqual(['cloneset', 'podtransitionrule']);
    expect(enabledControllers(['*', '-cloneset'], registry)).toEqual(['podtransitionrule']);
    expect(enabledControllers(['*', 'experimental'], registry)).toEqual(['cloneset', 'podtransitionrule', 'experimental']);
    expect(enabledControllers(['cloneset'], registry)).toEqual(['cloneset']);
  });
});

describe('--help', () => {
  it('documents every flag with its environment variable', () => {
    const text = helpText(known);
    for (const f of FLAGS) {
      expect(text).toContain(`--${f.name}`);
      expect(text).toContain(envName(f.name));
    }
    expect(text).toContain('cloneset, podtransitionrule');
  });
});
