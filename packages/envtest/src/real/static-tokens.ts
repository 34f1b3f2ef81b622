/**
 * Bearer tokens kube-apiserver accepts through `--token-auth-file`: a CSV of token, user, uid and a quoted
 * comma-separated group list. Values are checked rather than escaped, since the file format has no escaping.
 */
import { TestEnvironmentOptionsError } from './errors.js';

/**
 * A bearer token the real kube-apiserver accepts from the start, and the user it authenticates.
 */
export interface StaticToken {
  readonly token: string;
  readonly user: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
}

const unsafe = /[",\r\n]/;

/** Renders the token file; throws TestEnvironmentOptionsError for values the format cannot carry. */
export function renderTokenFile(tokens: readonly StaticToken[]): string {
  const seen = new Set<string>();
  return tokens
    .map(({ token, user, uid, groups = [] }) => {
      if (!token || unsafe.test(token))
        throw new TestEnvironmentOptionsError(`token for user ${JSON.stringify(user)} is empty or holds a comma, quote or newline`);
      if (!user || unsafe.test(user))
        throw new TestEnvironmentOptionsError(`user name ${JSON.stringify(user)} is empty or holds a comma, quote or newline`);
      if (seen.has(token)) throw new TestEnvironmentOptionsError(`the token for user ${JSON.stringify(user)} is given twice`);
      seen.add(token);
      const id = uid ?? user;
      if (unsafe.test(id)) throw new TestEnvironmentOptionsError(`uid ${JSON.stringify(id)} holds a comma, quote or newline`);
      for (const group of groups) {
        if (!group || unsafe.test(group))
          throw new TestEnvironmentOptionsError(
            `group ${JSON.stringify(group)} of user ${JSON.stringify(user)} is empty or holds a comma, quote or newline`,
          );
      }
      return `${token},${user},${id},"${groups.join(',')}"\n`;
    })
    .join('');
}
