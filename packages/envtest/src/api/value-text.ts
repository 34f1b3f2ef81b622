/**
 * How a value read from a request body appears in an error message: a string as itself (as Go's `%v` prints it),
 * anything else as its JSON, so a wrong-typed field reads `{"a":1}` rather than "[object Object]".
 */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}
