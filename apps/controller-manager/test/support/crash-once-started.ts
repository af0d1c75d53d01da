// Preloaded (node --import) into a manager process by the last-resort test: once the process
// listens for both crash events (main.ts installed its last resort), crash the way CRASH_MODE
// says. After 5 s it crashes anyway, so a manager without the handler fails the test quickly.
const GIVE_UP_MS = 5_000;
const since = Date.now();
const poll = setInterval(() => {
  const installed = process.listenerCount('uncaughtException') > 0 && process.listenerCount('unhandledRejection') > 0;
  if (!installed && Date.now() - since < GIVE_UP_MS) return;
  clearInterval(poll);
  if (process.env.CRASH_MODE === 'rejection') void Promise.reject(new Error('crash test: a rejection nobody handles'));
  else throw new Error('crash test: an exception nobody catches');
}, 50);
