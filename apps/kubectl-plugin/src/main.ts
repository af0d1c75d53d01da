// kubectl-cloneset's entry: run the command line, exit with its status; Ctrl-C ends `-w`.
import type { Io } from './commands/io.ts';
import { main } from './cli.ts';

const interrupted = new AbortController();
process.once('SIGINT', () => interrupted.abort());
const io: Io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), now: () => new Date() };
process.exitCode = await main(process.argv.slice(2), io, interrupted.signal);
