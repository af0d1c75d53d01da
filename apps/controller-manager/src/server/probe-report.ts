// What /healthz and /readyz answer, in the apiserver's style: 200 "ok", or 500 listing the failed
// checks; ?verbose lists every check. A check that only informs (controller caches on /readyz)
// is listed on ?verbose but never fails the answer, as controller-runtime's readyz runs only the
// checks registered to gate it.

export interface CheckResult {
  name: string;
  ok: boolean;
  /** false: shown on ?verbose, never makes the endpoint fail. */
  gating: boolean;
}

export interface ProbeAnswer {
  code: 200 | 500;
  body: string;
}

function line(r: CheckResult): string {
  const state = r.ok ? 'ok' : r.gating ? 'failed' : 'not yet (informational, does not gate)';
  return `[${r.ok ? '+' : '-'}]${r.name} ${state}`;
}

export function probeAnswer(results: readonly CheckResult[], verbose: boolean): ProbeAnswer {
  const failed = results.filter((r) => r.gating && !r.ok);
  if (failed.length === 0 && !verbose) return { code: 200, body: 'ok' };
  const tail = failed.length === 0 ? 'check passed' : `check failed: ${failed.map((f) => f.name).join(', ')}`;
  return { code: failed.length === 0 ? 200 : 500, body: `${results.map(line).join('\n')}\n${tail}\n` };
}
