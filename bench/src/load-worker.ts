// The load generator's thread: a LoadRunner driven by messages from ./load.ts, so the load has
// an event loop of its own instead of the bench's.
import { parentPort, workerData } from 'node:worker_threads';
import { LoadRunner, type LoadTarget } from './load-runner.ts';
import type { LoadCommand, LoadReply } from './load.ts';

const runner = new LoadRunner(workerData as LoadTarget);
const port = parentPort!;

async function run(command: LoadCommand): Promise<LoadReply> {
  switch (command.kind) {
    case 'warmUp':
      await runner.warmUp(command.perConnection);
      return { ok: true };
    case 'paced':
      return { ok: true, result: await runner.paced(command.rps, command.seconds) };
    case 'saturated':
      return { ok: true, result: await runner.saturated(command.maxRequests, command.maxSeconds) };
    case 'close':
      runner.close();
      return { ok: true };
  }
}

port.on('message', (command: LoadCommand) => {
  run(command).then(
    (reply) => port.postMessage(reply),
    (err: unknown) => port.postMessage({ ok: false, error: (err as Error).message } satisfies LoadReply),
  );
});
