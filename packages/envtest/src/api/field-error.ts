/**
 * Field validation errors in apimachinery's field.Error format (`spec.a: Invalid value: "x": detail`), gathered into
 * 422 Invalid Status causes.
 */

export type FieldErrorType =
  'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueNotSupported' | 'FieldValueDuplicate';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueForbidden: 'Forbidden',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
};

export class FieldError {
  constructor(
    readonly type: FieldErrorType,
    readonly field: string,
    readonly detail: string,
    readonly value?: { readonly v: unknown },
  ) {}

  /** The message without the field path, as in a Status cause. */
  detailMessage(): string {
    let s = TYPE_TEXT[this.type];
    if (this.value !== undefined) s += `: ${formatValue(this.value.v)}`;
    if (this.detail) s += `: ${this.detail}`;
    return s;
  }

  toString(): string {
    return `${this.field}: ${this.detailMessage()}`;
  }
}

export const required = (field: string, detail = ''): FieldError => new FieldError('FieldValueRequired', field, detail);
export const invalidValue = (field: string, value: unknown, detail: string): FieldError =>
  new FieldError('FieldValueInvalid', field, detail, { v: value });
export const duplicate = (field: string, value: unknown): FieldError => new FieldError('FieldValueDuplicate', field, '', { v: value });
export const forbiddenField = (field: string, detail: string): FieldError => new FieldError('FieldValueForbidden', field, detail);
export const notSupported = (field: string, value: unknown, allowed: readonly string[]): FieldError =>
  new FieldError('FieldValueNotSupported', field, `supported values: ${allowed.map((a) => JSON.stringify(a)).join(', ')}`, { v: value });

export function formatFieldErrors(errors: readonly FieldError[]): string {
  if (errors.length === 1) return String(errors[0]);
  return `[${errors.map(String).join(', ')}]`;
}

/** A value printed verbatim, for the few messages where Go prints a typed value (e.g. `0x0` for a uint64 zero). */
export class RawValue {
  constructor(readonly text: string) {}
}

function formatValue(v: unknown): string {
  if (v instanceof RawValue) return v.text;
  if (v === null || v === undefined) return 'null';
  return JSON.stringify(v);
}
