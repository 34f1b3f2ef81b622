/** Query-string parsing with Go's rules: absent, `0` and `false` (any case) are false; anything else is true. */

export function queryBool(params: URLSearchParams, name: string): boolean {
  const v = params.get(name);
  if (v === null) return false;
  const lower = v.toLowerCase();
  return !(lower === '0' || lower === 'false');
}

export function queryOptionalBool(params: URLSearchParams, name: string): boolean | undefined {
  return params.has(name) ? queryBool(params, name) : undefined;
}
