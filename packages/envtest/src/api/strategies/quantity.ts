/**
 * A resource.Quantity's value, exactly, for the rules that compare or add quantities (a Pod's QoS class): in
 * nano-units as a bigint, so that `100m + 200m` equals `300m` and `1Gi` equals `1073741824`.
 */

const BINARY: Readonly<Record<string, bigint>> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL_EXPONENT: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const QUANTITY = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][-+]?[0-9]+)?$/;

/** The quantity in nano-units (rounded toward zero below one), or undefined when `value` is no quantity. */
export function quantityNanos(value: unknown): bigint | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') return undefined;
  const match = QUANTITY.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = match;
  // The number as digits over a power of ten: 1.25 is 125 / 10^2.
  let digits = BigInt(`${whole}${fraction}` || '0');
  let exponent = 9 - fraction.length;
  if (suffix in BINARY) digits *= BINARY[suffix]!;
  else exponent += suffix.length > 1 ? Number(suffix.slice(1)) : DECIMAL_EXPONENT[suffix]!;
  const nanos = exponent >= 0 ? digits * 10n ** BigInt(exponent) : digits / 10n ** BigInt(-exponent);
  return sign === '-' ? -nanos : nanos;
}
