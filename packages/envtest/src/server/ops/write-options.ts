/** Options every write verb shares. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  readonly dryRun: boolean;
  /** From `fieldManager`, or the User-Agent up to its first `/`. */
  readonly fieldManager: string | undefined;
  /** What to do about unknown fields: drop them silently (Ignore), with a warning (Warn, the server's default), or refuse (Strict). */
  readonly fieldValidation?: FieldValidation;
  /** Set by server-side apply, which records its own managedFields entry (not an Update one). */
  readonly applying?: boolean;
  /** Collects `Warning` header texts (fieldValidation=Warn). */
  readonly warnings?: string[];
}
