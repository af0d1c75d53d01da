// The sharder of kubernetes-controller-sharding beside the local cluster: its ControllerRing CRD,
// the ring itself, and the sharder process with its webhook in URL mode on loopback (own CA and
// serving pair, made by the manager's bundle planner), metrics off.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort, type SharderBuild } from '@cloneset-suite/local-cluster';
import { planBundle } from '../certs/bundle.ts';
import { ensureNamespace } from '../local-install.ts';
import { controllerRing, sharderConfig } from './ring-objects.ts';
import { SupervisedProcess } from './supervised-process.ts';

/** The sharder's leader-election namespace (its default). */
const SHARDER_NAMESPACE = 'sharding-system';
/** controller-runtime's default webhook port, which SharderConfig does not change. */
export const SHARDER_WEBHOOK_PORT = 9443;
const DAY_MS = 86_400_000;

type Kubectl = (args: readonly string[], input?: string) => Promise<string>;

/** The ring's CRD (of the sharder's commit) and the ControllerRing `ring`, limited to `namespaces` when given. */
export async function installRing(run: Kubectl, build: SharderBuild, ring: string, namespaces?: readonly string[]): Promise<void> {
  await run(['apply', '--server-side', '--force-conflicts', '-f', build.crdPath]);
  await run(['wait', '--for=condition=Established', '--timeout=60s', 'crd/controllerrings.sharding.timebertt.dev']);
  await ensureNamespace(run, SHARDER_NAMESPACE);
  await run(['apply', '-f', '-'], stringify(controllerRing(ring, namespaces)));
}

/** The sharder's serving pair for 127.0.0.1 from a CA made for it, in `dir`; returns the CA. */
async function sharderCertificates(dir: string): Promise<string> {
  const { bundle } = await planBundle(undefined, { hosts: ['127.0.0.1', 'localhost'], servingValidityMs: 365 * DAY_MS, now: new Date() });
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'tls.crt'), bundle.tlsCert);
  writeFileSync(path.join(dir, 'tls.key'), bundle.tlsKey, { mode: 0o600 });
  return bundle.caCert;
}

export interface LocalSharder {
  process: SupervisedProcess;
  healthPort: number;
}

/** Starts the sharder on `kubeconfig` with its files in `dir` (its client at 100 qps: its moves on a drain are writes like the shards'). */
export async function startSharder(build: SharderBuild, o: { dir: string; kubeconfig: string; line?: (line: string) => void }): Promise<LocalSharder> {
  const caPem = await sharderCertificates(o.dir);
  const healthPort = await freePort();
  const configPath = path.join(o.dir, 'config.yaml');
  writeFileSync(configPath, stringify(sharderConfig({ certDir: o.dir, caPem, webhookPort: SHARDER_WEBHOOK_PORT, healthPort, qps: 100, burst: 200 })));
  const sharder = new SupervisedProcess({
    name: 'sharder',
    command: build.binary,
    args: [`--config=${configPath}`],
    env: { ...process.env, KUBECONFIG: o.kubeconfig, DISABLE_HTTP2: 'true' },
    line: o.line,
    // It exits only on a fatal error (a taken port, say): started again, it would fail again.
    restart: false,
  });
  return { process: sharder.start(), healthPort };
}
