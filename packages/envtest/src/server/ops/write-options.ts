/** Options every write verb shares. */
export interface WriteOptions {
  readonly dryRun: boolean;
  /** From `fieldManager`, or the User-Agent up to its first `/`. */
  readonly fieldManager: string | undefined;
}
