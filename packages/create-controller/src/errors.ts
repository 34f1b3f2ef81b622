/**
 * What can go wrong when scaffolding, one class per cause: the caller's input (a usage error, exit 2, nothing
 * written) or the target folder (exit 1, nothing written). Neither is worth retrying as is.
 */

/** Bad flags or answers: an unknown provider, an invalid name, a missing value with no terminal to ask on. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The target folder exists and is not empty: a scaffold never writes over someone's files. */
export class TargetNotEmptyError extends Error {
  override readonly name = 'TargetNotEmptyError';
  constructor(readonly dir: string) {
    super(`${dir} exists and is not empty: choose a new folder (nothing was written)`);
  }
}

/** The scaffolder's own package.json lacks a version it pins (a broken install of the scaffolder). */
export class VersionTableError extends Error {
  override readonly name = 'VersionTableError';
}
