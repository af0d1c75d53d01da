// A fresh process that times the CloneSet's planning on the objects it is sent (./plan-timing.ts),
// answers once and exits.
import { timeCachedPlans, type PlanTimingRequest } from './plan-timing.ts';

process.once('message', (request) => {
  process.send?.(timeCachedPlans(request as PlanTimingRequest), () => process.exit(0));
});
