/**
 * resource.Quantity as the real server reads and writes it: the value exactly (nano-units in a bigint, so that
 * `100m + 200m` equals `300m` and `1Gi` equals `1073741824`), for the rules that compare or add quantities (a Pod's
 * QoS class), and the canonical text Go stores (`0.5` becomes `500m`, `1024Mi` becomes `1Gi`, `1500` stays), so a
 * controller that compares what it asked for with what was stored meets in memory the difference it meets on a real
 * cluster.
 */

/** How a quantity was written, which decides how it is written back: the suffix family of its text. */
type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;
const DECIMAL_EXPONENT: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SUFFIX: Readonly<Record<number, string>> = Object.fromEntries(Object.entries(DECIMAL_EXPONENT).map(([s, e]) => [e, s]));
const QUANTITY = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][-+]?[0-9]+)?$/;
const NANO = 1_000_000_000n;
/** A milli-unit in nano-units. */
const MILLI = 1_000_000n;

interface Parsed {
  readonly nanos: bigint;
  readonly format: Format;
}

function parse(value: unknown): Parsed | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') return undefined;
  const match = QUANTITY.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = match;
  // The number as digits over a power of ten: 1.25 is 125 / 10^2.
  let digits = BigInt(`${whole}${fraction}` || '0');
  let exponent = 9 - fraction.length;
  let format: Format = 'DecimalSI';
  const binary = BINARY_SUFFIXES.indexOf(suffix as (typeof BINARY_SUFFIXES)[number]);
  if (suffix !== '' && binary > 0) {
    digits *= 1n << BigInt(10 * binary);
    format = 'BinarySI';
  } else if (suffix.length > 1) {
    // e3, E-2: an exponent, not the one-letter suffix E (exa).
    exponent += Number(suffix.slice(1));
    format = 'DecimalExponent';
  } else exponent += DECIMAL_EXPONENT[suffix]!;
  // Below a nano-unit Go rounds away from zero.
  const divisor = 10n ** BigInt(Math.max(0, -exponent));
  let nanos = exponent >= 0 ? digits * 10n ** BigInt(exponent) : digits / divisor;
  if (exponent < 0 && digits % divisor !== 0n) nanos += 1n;
  return { nanos: sign === '-' ? -nanos : nanos, format };
}

/** The quantity in nano-units, or undefined when `value` is no quantity. */
export function quantityNanos(value: unknown): bigint | undefined {
  return parse(value)?.nanos;
}

/**
 * The text Go writes for a quantity (Quantity.String of the parsed value); anything that is no quantity is returned as
 * it came. `roundUpToMilli`: first rounded away from zero to whole milli-units, as core/v1 defaults a ResourceList.
 */
export function canonicalQuantity(value: unknown, options: { roundUpToMilli?: boolean } = {}): unknown {
  const parsed = parse(value);
  if (!parsed) return value;
  let nanos = parsed.nanos;
  const remainder = nanos % MILLI;
  if (options.roundUpToMilli && remainder !== 0n) nanos += (nanos < 0n ? -MILLI : MILLI) - remainder;
  if (nanos === 0n) return '0';
  const negative = nanos < 0n;
  const magnitude = negative ? -nanos : nanos;
  const sign = negative ? '-' : '';
  // Binary suffixes only for whole numbers of at least 1024; anything else reads as decimal.
  if (parsed.format === 'BinarySI' && magnitude >= 1024n * NANO && magnitude % NANO === 0n) {
    let units = magnitude / NANO;
    let power = 0;
    while (units % 1024n === 0n && power < BINARY_SUFFIXES.length - 1) {
      units /= 1024n;
      power++;
    }
    return `${sign}${units}${BINARY_SUFFIXES[power]}`;
  }
  // Decimal: trailing zeros move into the exponent, which is then made a multiple of three.
  let mantissa = magnitude;
  let exponent = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const off = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(off);
  exponent -= off;
  const format = parsed.format === 'BinarySI' ? 'DecimalSI' : parsed.format;
  const suffix = format === 'DecimalExponent' ? (exponent === 0 ? '' : `e${exponent}`) : (DECIMAL_SUFFIX[exponent] ?? `e${exponent}`);
  return `${sign}${mantissa}${suffix}`;
}
