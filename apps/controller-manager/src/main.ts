#!/usr/bin/env node
// Entry point: node apps/controller-manager/src/main.ts [flags]. Exits 2 on a bad flag or config
// value, 1 on a startup failure, a failed component, lost leadership or an uncaught exception or
// unhandled rejection (logged as one JSON line), 0 after a graceful SIGTERM/SIGINT.
import { ConfigError, loadConfig } from './config/load.ts';
import { helpText } from './config/help.ts';
import { controllerNames } from './controllers/registry.ts';
import { installLastResort } from './last-resort.ts';

const known = controllerNames();
let loaded;
try {
  loaded = loadConfig({ argv: process.argv.slice(2), knownControllers: known });
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`controller-manager: ${err.message}\n`);
  process.exit(2);
}
if (loaded.kind === 'help') {
  process.stdout.write(helpText(known));
  process.exit(0);
}

// Loaded only now: --help and flag errors answer without loading the Kubernetes client.
const { startManager } = await import('./app.ts');
let running;
try {
  running = startManager(loaded.config);
} catch (err) {
  process.stderr.write(`controller-manager: cannot start: ${(err as Error).message}\n`);
  process.exit(1);
}
const manager = running;
installLastResort(manager.logger);
let signals = 0;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    signals++;
    if (signals > 1) {
      manager.logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    manager.shutdown(signal);
  });
}
process.exit(await manager.finished);
