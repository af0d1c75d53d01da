// Locates (building once, from a source the user gave) the sharder of kubernetes-controller-sharding
// and its ControllerRing CRD. The pinned version lives in scripts/build-sharder.sh, the single
// place that knows it.
import path from 'node:path';
import { runBuildScript } from './binaries.ts';
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
  const dir = await runBuildScript(buildSharderScript, source ? [source] : [], 'making the sharder available (build-sharder.sh)');
  return { binary: path.join(dir, 'bin', 'sharder'), crdPath: path.join(dir, 'controllerrings.yaml') };
}
