/**
 * Field selectors as a resource serves them: the syntax is apimachinery's (read by `@multicluster-runtime/apimachinery`,
 * as core's cache reads it); every resource supports metadata.name and metadata.namespace, anything else is "field
 * label not supported".
 */
import { FieldSelectorError, parseFieldSelector, type FieldRequirement } from '@multicluster-runtime/apimachinery';

/** A selector the server refuses (400): bad syntax of either kind, or a field it does not support. */
export class SelectorParseError extends Error {
  override name = 'SelectorParseError';
}

const SUPPORTED = new Set(['metadata.name', 'metadata.namespace']);

export class FieldSelector {
  private constructor(readonly requirements: readonly FieldRequirement[]) {}

  static readonly everything = new FieldSelector([]);

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  static parse(text: string): FieldSelector {
    let reqs: FieldRequirement[];
    try {
      reqs = parseFieldSelector(text);
    } catch (err) {
      if (err instanceof FieldSelectorError) throw new SelectorParseError(err.message);
      throw err;
    }
    for (const r of reqs) if (!SUPPORTED.has(r.field)) throw new FieldLabelNotSupportedError(r.field);
    return new FieldSelector(reqs);
  }

  /** The value an `=` requirement pins `field` to, if any (used to check a watch's name against the URL). */
  exactValue(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.op === '=')?.value;
  }

  matches(obj: { metadata: { name: string; namespace?: string } }): boolean {
    return this.requirements.every((r) => {
      const actual = r.field === 'metadata.name' ? obj.metadata.name : (obj.metadata.namespace ?? '');
      return r.op === '=' ? actual === r.value : actual !== r.value;
    });
  }

  with(field: string, value: string): FieldSelector {
    return new FieldSelector([...this.requirements, { field, op: '=', value }]);
  }
}

export class FieldLabelNotSupportedError extends SelectorParseError {
  constructor(readonly field: string) {
    super(`field label not supported: ${field}`);
  }
}
