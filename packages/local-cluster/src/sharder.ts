// Locates (building once, from a source the user gave) the sharder of kubernetes-controller-sharding
// and its ControllerRing CRD. The pinned version lives in scripts/build-sharder.sh, the single
// place that knows it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from './paths.ts';

const buildSharderScript = path.join(packageRoot, 'scripts', 'build-sharder.sh');

export interface SharderBuild {
  /** The sharder binary. */
  binary: string;
  /** The ControllerRing CRD of the same commit. */
  crdPath: string;
}

/**
 * Builds the sharder when the cache lacks it (from `source`, else $SHARDER_SOURCE: a clone of the
 * repository or its git directory); fails with the script's own instructions when neither is given.
 */
export async function ensureSharder(source?: string): Promise<SharderBuild> {
  const child = spawn('bash', [buildSharderScript, ...(source ? [source] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`the sharder is not available (build-sharder.sh exited ${code}); see the messages above`);
  const dir = out.trim().split('\n').at(-1);
  if (!dir) throw new Error('build-sharder.sh printed no directory');
  return { binary: path.join(dir, 'bin', 'sharder'), crdPath: path.join(dir, 'controllerrings.yaml') };
}
