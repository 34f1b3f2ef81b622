/**
 * The user a test's bearer token authenticates as, in one shape on every tier (in-memory, real, Milo): Kubernetes'
 * `UserInfo` field names (`username`, `uid`, `groups`), or just the user name as a string. A malformed user is refused
 * when the token is added, with what was expected — not at the first request as a 401.
 */

export interface TokenUser {
  readonly username: string;
  readonly uid?: string;
  /** `system:authenticated` is always added, as the API server does. */
  readonly groups?: readonly string[];
}

/** Checks a token and its user; returns the user in object form. `fail` makes the tier's own error class. */
export function checkTokenUser(token: unknown, user: unknown, fail: (message: string) => Error): TokenUser {
  if (typeof token !== 'string' || token === '' || /\s/.test(token)) {
    throw fail('addToken: a bearer token must be a non-empty string without whitespace');
  }
  if (typeof user === 'string') {
    if (user === '') throw fail('addToken: the user name is empty');
    return { username: user };
  }
  if (typeof user !== 'object' || user === null)
    throw fail(`addToken: the user must be a name or { username, uid?, groups? }, got ${typeof user}`);
  const u = user as Record<string, unknown>;
  if (typeof u['username'] !== 'string' || u['username'] === '') {
    const hint = 'name' in u ? ' (it has `name`: the field is `username`, as in Kubernetes UserInfo)' : '';
    throw fail(`addToken: the user needs a non-empty \`username\`${hint}`);
  }
  const groups = u['groups'];
  if (groups !== undefined && !(Array.isArray(groups) && groups.every((g) => typeof g === 'string'))) {
    throw fail('addToken: `groups` must be an array of strings');
  }
  if (u['uid'] !== undefined && typeof u['uid'] !== 'string') throw fail('addToken: `uid` must be a string');
  return user as TokenUser;
}

/** How long a token added with `addToken` is accepted. */
export interface TokenOptions {
  /** From this instant on the token is refused (401), as an expired ServiceAccount or Gardener token is. Default: never. */
  readonly expiresAt?: Date;
}

/** Checks addToken's options; returns the expiry in epoch milliseconds (Infinity for none). */
export function tokenExpiry(options: TokenOptions | undefined, fail: (message: string) => Error): number {
  const at = options?.expiresAt;
  if (at === undefined) return Number.POSITIVE_INFINITY;
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw fail('addToken: `expiresAt` must be a valid Date');
  return at.getTime();
}
