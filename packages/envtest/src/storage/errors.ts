/** Failures of the in-memory store, mapped to 410/504 Status errors by the HTTP layer. */

/** The requested revision was compacted away. Retrying the same revision never helps; relist from "now". */
export class ResourceVersionExpiredError extends Error {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest})`);
    this.name = 'ResourceVersionExpiredError';
  }
}

/** The requested revision is ahead of the store. Retrying later may help. */
export class ResourceVersionTooLargeError extends Error {
  constructor(
    readonly requested: number,
    readonly current: number,
  ) {
    super(`Too large resource version: ${requested}, current: ${current}`);
    this.name = 'ResourceVersionTooLargeError';
  }
}
