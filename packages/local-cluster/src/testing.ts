// Small helpers the cluster suites share: JSON from kubectl, polling, throwaway namespaces.
import { randomBytes } from 'node:crypto';
import { describeComponents, kubectl } from './cluster.ts';
import { sleep } from './run.ts';

/** `kubectl get -o json` parsed; undefined when the object does not exist. */
export async function getJson<T = Record<string, unknown>>(args: readonly string[]): Promise<T | undefined> {
  const out = await kubectl(['get', ...args, '-o', 'json', '--ignore-not-found']);
  return out.trim() === '' ? undefined : (JSON.parse(out) as T);
}

/**
 * Polls `check` until it returns a value other than undefined/false, or fails with the
 * last error/value after `timeoutMs`.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  { timeoutMs = 30_000, intervalMs = 200 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${detail})`);
    }
    await sleep(intervalMs);
  }
}

/** Creates a namespace with a unique name; delete it with the returned function. */
export async function createTestNamespace(prefix: string): Promise<{ name: string; remove: () => Promise<void> }> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await kubectl(['create', 'namespace', name]);
  // Pods are admitted only once the service-account controller created "default" here.
  await eventually(`serviceaccount default in ${name}`, async () =>
    (await kubectl(['get', 'serviceaccount', 'default', '-n', name, '--ignore-not-found', '-o', 'name'])).trim() !== '',
  ).catch(async (err: unknown) => {
    throw new Error(`${(err as Error).message}; control plane: ${await describeComponents()}`, { cause: err });
  });
  return { name, remove: async () => void (await kubectl(['delete', 'namespace', name, '--wait=false'])) };
}
