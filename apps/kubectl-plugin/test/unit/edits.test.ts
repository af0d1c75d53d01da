import type { CloneSet } from '@cloneset-suite/api-types';
import { describe, expect, it } from 'vitest';
import { parseImageAssignments, partitionEdit, pauseEdit, restartEdit, setImageEdit, undoEdit } from '../../src/core/edits.ts';

const cs = (paused?: boolean): CloneSet =>
  ({
    metadata: { name: 'web', resourceVersion: '42' },
    spec: {
      selector: {},
      updateStrategy: paused === undefined ? {} : { paused },
      template: { spec: { initContainers: [{ name: 'init', image: 'i:1' }], containers: [{ name: 'main', image: 'm:1' }, { name: 'side', image: 's:1' }] } },
    },
  });

const guard = { op: 'test', path: '/metadata/resourceVersion', value: '42' };

describe('edits', () => {
  it('pauses and resumes through spec.updateStrategy.paused, refusing a no-op as kubectl does', () => {
    expect(pauseEdit(cs(), true)).toEqual({ type: 'merge', body: { spec: { updateStrategy: { paused: true } } } });
    expect(pauseEdit(cs(true), false)).toEqual({ type: 'merge', body: { spec: { updateStrategy: { paused: false } } } });
    expect(() => pauseEdit(cs(true), true)).toThrow('clonesets.apps.kruise.io "web" is already paused');
    expect(() => pauseEdit(cs(false), false)).toThrow('clonesets.apps.kruise.io "web" is not paused');
    expect(() => pauseEdit(cs(), false)).toThrow('is not paused');
  });

  it('restarts with the restartedAt template annotation, RFC 3339 to the second', () => {
    expect(restartEdit(new Date('2030-05-06T07:08:09.123Z'))).toEqual({
      type: 'merge',
      body: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2030-05-06T07:08:09Z' } } } } },
    });
  });

  const images: [string, string[], unknown[] | string][] = [
    ['one container', ['main=m:2'], [guard, { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'm:2' }]],
    ['an init container', ['init=i:2'], [guard, { op: 'replace', path: '/spec/template/spec/initContainers/0/image', value: 'i:2' }]],
    [
      'every container',
      ['*=x:1'],
      [
        guard,
        { op: 'replace', path: '/spec/template/spec/initContainers/0/image', value: 'x:1' },
        { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'x:1' },
        { op: 'replace', path: '/spec/template/spec/containers/1/image', value: 'x:1' },
      ],
    ],
    ['an image with a digest and port', ['side=reg:5000/s@sha256:ab'], [guard, { op: 'replace', path: '/spec/template/spec/containers/1/image', value: 'reg:5000/s@sha256:ab' }]],
    ['an unknown container', ['nope=x'], 'unable to find container named "nope"'],
    ['no assignment', [], 'at least one image update is required'],
    ['no equals sign', ['main'], 'invalid image update "main": expected CONTAINER=IMAGE'],
    ['no container name', ['=img'], 'invalid image update "=img"'],
  ];
  it.each(images)('set image: %s', (_, args, expected) => {
    const run = () => setImageEdit(cs(), parseImageAssignments(args));
    if (typeof expected === 'string') expect(run).toThrow(expected);
    else expect(run()).toEqual({ type: 'json', body: expected });
  });

  it.each([
    ['3', 3],
    ['0', 0],
    ['20%', '20%'],
    ['12.5%', '12.5%'],
    ['half', 'half'],
  ])('partition %s is sent as %j for the server to judge', (arg, value) => {
    expect(partitionEdit(arg)).toEqual({ type: 'merge', body: { spec: { updateStrategy: { partition: value } } } });
  });

  it('undo replaces the whole template, guarded by the resourceVersion read', () => {
    const template = { spec: { containers: [{ name: 'main', image: 'm:0' }] } };
    expect(undoEdit(cs(), template)).toEqual({ type: 'json', body: [guard, { op: 'replace', path: '/spec/template', value: template }] });
  });
});
