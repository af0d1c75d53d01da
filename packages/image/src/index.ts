// Nothing of this package is imported by another: its scripts are run (the Dockerfile runs
// prune-for-image.ts, `npm run image:build` runs scripts/build-image.sh).
export {};
