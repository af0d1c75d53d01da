// Proves which Node runs the tests: printed once per vitest run (as its global setup)
// and once by `npm test` itself. Fails fast below the supported floor.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);

export function checkNodeVersion(): void {
  console.log(`[tests] node ${process.version} (${process.execPath})`);
  if (major < 22 || (major === 22 && minor < 19)) {
    throw new Error(`Node >= 22.19 is required, got ${process.version}: run through npm scripts, which put the pinned node@24 first on PATH`);
  }
}

export default function setup(): void {
  checkNodeVersion();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    checkNodeVersion();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
