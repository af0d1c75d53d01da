import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { controllerRing, sharderConfig } from '../../src/dev-ring/ring-objects.ts';
import { splitShardsArg } from '../../src/dev-ring/shards-arg.ts';

describe('npm start --shards', () => {
  it.each([
    [['--shards=3'], { shards: 3, rest: [] }],
    [['--log-level=debug', '--shards', '2', '--namespace=a'], { shards: 2, rest: ['--log-level=debug', '--namespace=a'] }],
    [['--log-level=debug'], undefined],
  ])('splits %j', (args, want) => {
    expect(splitShardsArg(args)).toEqual(want);
  });

  it.each([['--shards=0'], ['--shards=10'], ['--shards=two'], ['--shards']])('refuses %s, naming the flag', (arg) => {
    expect(() => splitShardsArg([arg])).toThrow(/--shards must be a whole number from 1 to 9/);
  });
});

describe('the local ring', () => {
  it('shards CloneSets with their pods, PVCs and revisions, and PodTransitionRules on their own, naming the core group as the CRD requires', () => {
    const ring = controllerRing('r') as { spec: { resources: { group: string; resource: string; controlledResources?: { group: string; resource: string }[] }[] } };
    expect(ring.spec.resources).toEqual([
      {
        group: 'apps.kruise.io',
        resource: 'clonesets',
        controlledResources: [
          { group: '', resource: 'pods' },
          { group: '', resource: 'persistentvolumeclaims' },
          { group: 'apps', resource: 'controllerrevisions' },
        ],
      },
      { group: 'apps.kusionstack.io', resource: 'podtransitionrules' },
    ]);
    expect(parse(stringify(ring)).spec).not.toHaveProperty('namespaceSelector');
    expect(controllerRing('r', ['a', 'b'])).toHaveProperty('spec.namespaceSelector.matchExpressions', [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['a', 'b'] }]);
  });

  it("points the sharder's webhook at loopback with the CA that signed its certificate, and keeps it off the manager's ports", () => {
    const config = parse(JSON.stringify(sharderConfig({ certDir: '/c', caPem: 'PEM', webhookPort: 9443, healthPort: 4000, qps: 100, burst: 200 })));
    expect(config.webhook).toEqual({ server: { certDir: '/c' }, config: { clientConfig: { url: 'https://127.0.0.1:9443', caBundle: Buffer.from('PEM').toString('base64') } } });
    expect(config.health).toEqual({ bindAddress: '127.0.0.1:4000' });
    expect(config.metrics).toEqual({ bindAddress: '0' });
    expect(config.clientConnection).toEqual({ qps: 100, burst: 200 });
  });
});
