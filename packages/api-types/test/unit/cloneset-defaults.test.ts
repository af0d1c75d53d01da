import { describe, expect, it } from 'vitest';
import { defaultCloneSet, defaultPodTemplate, type CloneSet } from '../../src/index.ts';
import { loadCloneSet } from '../fixtures.ts';

const base = (): CloneSet => loadCloneSet();

describe('defaultCloneSet (OpenKruise\'s CloneSet defaulting)', () => {
  it('does not modify its input', () => {
    const cs = base();
    const before = structuredClone(cs);
    defaultCloneSet(cs);
    expect(cs).toEqual(before);
  });

  it.each<[string, (cs: CloneSet) => void, (out: CloneSet) => unknown, unknown]>([
    ['replicas nil -> 1', (cs) => delete cs.spec.replicas, (o) => o.spec.replicas, 1],
    ['replicas kept', (cs) => (cs.spec.replicas = 0), (o) => o.spec.replicas, 0],
    ['revisionHistoryLimit nil -> 10', () => {}, (o) => o.spec.revisionHistoryLimit, 10],
    ['revisionHistoryLimit kept', (cs) => (cs.spec.revisionHistoryLimit = 3), (o) => o.spec.revisionHistoryLimit, 3],
    ['type empty -> ReCreate', () => {}, (o) => o.spec.updateStrategy?.type, 'ReCreate'],
    ['type "" -> ReCreate', (cs) => (cs.spec.updateStrategy = { type: '' as 'ReCreate' }), (o) => o.spec.updateStrategy?.type, 'ReCreate'],
    ['type kept', (cs) => (cs.spec.updateStrategy = { type: 'OnDelete' }), (o) => o.spec.updateStrategy?.type, 'OnDelete'],
    ['InPlaceIfPossible gets inPlaceUpdateStrategy {}', (cs) => (cs.spec.updateStrategy = { type: 'InPlaceIfPossible' }), (o) => o.spec.updateStrategy?.inPlaceUpdateStrategy, {}],
    ['InPlaceOnly gets inPlaceUpdateStrategy {}', (cs) => (cs.spec.updateStrategy = { type: 'InPlaceOnly' }), (o) => o.spec.updateStrategy?.inPlaceUpdateStrategy, {}],
    ['ReCreate gets no inPlaceUpdateStrategy', () => {}, (o) => o.spec.updateStrategy?.inPlaceUpdateStrategy, undefined],
    ['inPlaceUpdateStrategy kept', (cs) => (cs.spec.updateStrategy = { type: 'InPlaceOnly', inPlaceUpdateStrategy: { gracePeriodSeconds: 5 } }), (o) => o.spec.updateStrategy?.inPlaceUpdateStrategy, { gracePeriodSeconds: 5 }],
    ['partition nil -> 0', () => {}, (o) => o.spec.updateStrategy?.partition, 0],
    ['partition kept', (cs) => (cs.spec.updateStrategy = { partition: '50%' }), (o) => o.spec.updateStrategy?.partition, '50%'],
    ['maxUnavailable nil -> "20%"', () => {}, (o) => o.spec.updateStrategy?.maxUnavailable, '20%'],
    ['maxUnavailable kept', (cs) => (cs.spec.updateStrategy = { maxUnavailable: 2 }), (o) => o.spec.updateStrategy?.maxUnavailable, 2],
    ['maxSurge nil -> 0', () => {}, (o) => o.spec.updateStrategy?.maxSurge, 0],
    ['maxSurge kept', (cs) => (cs.spec.updateStrategy = { maxSurge: '10%' }), (o) => o.spec.updateStrategy?.maxSurge, '10%'],
    ['scaleStrategy not defaulted', () => {}, (o) => o.spec.scaleStrategy, undefined],
    ['lifecycle not defaulted', () => {}, (o) => o.spec.lifecycle, undefined],
  ])('%s', (_name, mutate, pick, expected) => {
    const cs = base();
    mutate(cs);
    expect(pick(defaultCloneSet(cs))).toEqual(expected);
  });

  it('injects the pod template defaults on create, imagePullPolicy Always included', () => {
    const out = defaultCloneSet(base());
    expect(out.spec.template.spec).toMatchObject({
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      securityContext: {},
    });
    expect(out.spec.template.spec?.containers[0]).toEqual({
      name: 'nginx',
      image: 'nginx:alpine',
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
  });

  it('keeps template values that are set', () => {
    const cs = base();
    cs.spec.template.spec!.containers[0]!.imagePullPolicy = 'IfNotPresent';
    cs.spec.template.spec!.terminationGracePeriodSeconds = 5;
    const out = defaultCloneSet(cs);
    expect(out.spec.template.spec?.containers[0]?.imagePullPolicy).toBe('IfNotPresent');
    expect(out.spec.template.spec?.terminationGracePeriodSeconds).toBe(5);
  });

  it('skips template defaults on update when the template is unchanged', () => {
    const old = base();
    const cs = base();
    cs.spec.replicas = 9;
    const out = defaultCloneSet(cs, { old });
    expect(out.spec.template).toEqual(old.spec.template);
    expect(out.spec.replicas).toBe(9);
  });

  it('defaults the template on update when it changed', () => {
    const old = base();
    const cs = base();
    cs.spec.template.spec!.containers[0]!.image = 'nginx:mainline';
    expect(defaultCloneSet(cs, { old }).spec.template.spec?.containers[0]?.imagePullPolicy).toBe('Always');
  });

  it('skips template defaults under TemplateNoDefaults', () => {
    const out = defaultCloneSet(base(), { templateNoDefaults: true });
    expect(out.spec.template).toEqual(base().spec.template);
  });

  it('defaults volume claim templates as kruise v1.8.4 does: phase Pending, volumeMode left unset', () => {
    const out = defaultCloneSet(loadCloneSet('seed-002-cloneset-sample-data.yaml'));
    expect(out.spec.volumeClaimTemplates?.[0]?.spec?.volumeMode).toBeUndefined();
    expect(out.spec.volumeClaimTemplates?.[0]?.status?.phase).toBe('Pending');
  });

  it('leaves a grpc probe without service unset, as kruise stores it', () => {
    const cs = base();
    cs.spec.template.spec!.containers[0]!.readinessProbe = { grpc: { port: 9090 } };
    const probe = defaultCloneSet(cs).spec.template.spec?.containers[0]?.readinessProbe;
    expect(probe?.grpc).toEqual({ port: 9090 });
    expect(probe?.periodSeconds).toBe(10);
  });

  it('leaves an object without spec for validation to report', () => {
    expect(defaultCloneSet({ metadata: { name: 'x' } } as unknown as CloneSet)).toEqual({ metadata: { name: 'x' } });
  });

  it('is idempotent', () => {
    const once = defaultCloneSet(loadCloneSet('seed-002-cloneset-sample-data.yaml'));
    expect(defaultCloneSet(once)).toEqual(once);
  });
});

describe('defaultPodTemplate', () => {
  it('defaults probes, ports, fieldRefs and volumes', () => {
    const out = defaultPodTemplate({
      spec: {
        hostNetwork: true,
        containers: [
          {
            name: 'c',
            image: 'i',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            readinessProbe: { httpGet: { port: 80 } },
            lifecycle: { preStop: { httpGet: { port: 80, path: '/stop' } } },
          },
        ],
        initContainers: [{ name: 'init', image: 'i' }],
        volumes: [{ name: 'a' }, { name: 'b', configMap: { name: 'cm' } }, { name: 'c', secret: { secretName: 's' } }],
      },
    });
    const c = out.spec!.containers[0]!;
    expect(c.ports).toEqual([{ containerPort: 80, protocol: 'TCP', hostPort: 80 }]);
    expect(c.env?.[0]?.valueFrom?.fieldRef?.apiVersion).toBe('v1');
    expect(c.readinessProbe).toEqual({ httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    expect(c.lifecycle?.preStop?.httpGet).toEqual({ port: 80, path: '/stop', scheme: 'HTTP' });
    expect(out.spec!.initContainers?.[0]?.imagePullPolicy).toBe('Always');
    expect(out.spec!.volumes).toEqual([
      { name: 'a', emptyDir: {} },
      { name: 'b', configMap: { name: 'cm', defaultMode: 0o644 } },
      { name: 'c', secret: { secretName: 's', defaultMode: 0o644 } },
    ]);
  });
});
