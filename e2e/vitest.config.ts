import { packageTestConfig } from '../vitest.shared.ts';

// Unit tests of the pure chaos pieces (src/**/*.test.ts); the cluster scenarios run from the root cluster config.
export default packageTestConfig();
