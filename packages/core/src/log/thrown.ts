/**
 * One line for a thrown value of unknown type, for logs and error messages. Errors give their message and
 * primitives themselves; a non-Error object is neither dumped (it may hold a request or response with credentials)
 * nor printed as the useless "[object Object]": the text says what was thrown.
 */
export function thrownText(value: unknown): string {
  if (value instanceof Error) return value.message;
  switch (typeof value) {
    case 'string':
      return value;
    case 'object':
      return value === null ? 'null' : 'a non-Error object';
    case 'function':
      return 'a non-Error function';
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'symbol':
    case 'undefined':
      return String(value);
  }
}
