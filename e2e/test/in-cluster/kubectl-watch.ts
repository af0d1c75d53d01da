// `kubectl get --watch --output-watch-events -o json` in the background, every version of every
// object kept until stopped. Object versions come with their resourceVersion: within one
// cluster's etcd they order writes across resources, which sampling two reads cannot. (kubectl's
// jsonpath output prints a watch's first list only for some resources, so JSON it is.)
import { spawn } from 'node:child_process';
import { testKubeconfigPath } from '@cloneset-suite/local-cluster';

export interface Watch<T> {
  /** Objects seen so far, in the order they came. */
  objects: () => T[];
  /** Ends the watch; returns every object seen. */
  stop: () => Promise<T[]>;
}

export function watchObjects<T>(args: readonly string[]): Watch<T> {
  const child = spawn('kubectl', ['--kubeconfig', testKubeconfigPath(), 'get', ...args, '--watch', '--output-watch-events', '-o', 'json'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const seen: T[] = [];
  const unparsed: string[] = [];
  let partial = '';
  // kubectl prints one watch event a line.
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      try {
        seen.push((JSON.parse(line) as { object: T }).object);
      } catch {
        unparsed.push(line.slice(0, 200));
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    objects: () => [...seen],
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      if (unparsed.length > 0) throw new Error(`kubectl get ${args.join(' ')} --watch printed lines that are no watch event: ${unparsed.join(' | ')}`);
      return [...seen];
    },
  };
}
