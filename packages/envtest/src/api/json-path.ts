/**
 * The JSONPath subset CRD printer columns use: `.a.b`, `.a[0]`, `.a[*]` (first match) and filters
 * `[?(@.type=="Ready")]`. Anything else yields undefined rather than an error, so a bad column never breaks a list.
 */
type Step = { field: string } | { index: number } | { filter: { field: string; value: string } };

const STEP = /^(?:\.([A-Za-z0-9_-]+)|\[(\d+|\*)\]|\[\?\(@\.([A-Za-z0-9_-]+)\s*==\s*(?:"([^"]*)"|'([^']*)')\)\])/;

export function parseJsonPath(path: string): Step[] | undefined {
  let rest = path
    .trim()
    .replace(/^\{(.*)\}$/, '$1')
    .replace(/^\$/, '');
  const steps: Step[] = [];
  while (rest.length > 0) {
    const m = STEP.exec(rest);
    if (!m) return undefined;
    if (m[1] !== undefined) steps.push({ field: m[1] });
    else if (m[2] !== undefined) steps.push({ index: m[2] === '*' ? 0 : Number(m[2]) });
    else steps.push({ filter: { field: m[3]!, value: m[4] ?? m[5] ?? '' } });
    rest = rest.slice(m[0].length);
  }
  return steps;
}

export function evaluateJsonPath(obj: unknown, steps: readonly Step[]): unknown {
  let cur: unknown = obj;
  for (const step of steps) {
    if (cur === undefined || cur === null) return undefined;
    if ('field' in step) cur = typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>)[step.field] : undefined;
    else if ('index' in step) cur = Array.isArray(cur) ? cur[step.index] : undefined;
    else
      cur = Array.isArray(cur)
        ? cur.find(
            (i) => typeof i === 'object' && i !== null && String((i as Record<string, unknown>)[step.filter.field]) === step.filter.value,
          )
        : undefined;
  }
  return cur;
}
