/** A mistake in the command line or a refused request of the user's making: printed as `error: ...`, exit 1. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
