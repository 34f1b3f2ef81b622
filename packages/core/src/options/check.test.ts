import { describe, expect, it } from 'vitest';
import { checkOptions } from './check.js';
import { arrayOf, boolean, either, func, nested, nonEmptyString, oneOf, positiveMs, recordOf, withMethods, type Shape } from './rules.js';

interface Timings {
  leaseMs?: number;
  retryMs?: number;
}
interface Options {
  name?: string;
  enabled?: boolean;
  mode?: 'fast' | 'careful';
  allow?: readonly string[];
  labels?: string | Record<string, string>;
  logger?: object;
  timings?: Timings;
  onEvent?: () => void;
}

const shape: Shape<Options> = {
  name: nonEmptyString,
  enabled: boolean,
  mode: oneOf('fast', 'careful'),
  allow: arrayOf(oneOf('exec', 'authProvider', 'localFiles', 'insecureTransport')),
  labels: either(nonEmptyString, recordOf(nonEmptyString)),
  logger: withMethods('a Logger', ['info', 'warn']),
  timings: nested<Timings>({ leaseMs: positiveMs, retryMs: positiveMs }),
  onEvent: func,
};

class TestOptionsError extends Error {
  override readonly name = 'TestOptionsError';
}

function problemWith(options: unknown, settings?: Parameters<typeof checkOptions<Options>>[3]): string {
  try {
    checkOptions(options as Options, shape, (m) => new TestOptionsError(m), settings);
  } catch (err) {
    expect(err).toBeInstanceOf(TestOptionsError);
    return (err as Error).message;
  }
  return '';
}

describe('checkOptions', () => {
  it('accepts valid options, absent options and undefined values', () => {
    expect(problemWith(undefined)).toBe('');
    expect(problemWith({})).toBe('');
    expect(
      problemWith({
        name: 'x',
        enabled: false,
        allow: ['exec'],
        labels: { a: 'b' },
        logger: { info() {}, warn() {} },
        timings: { leaseMs: 10, retryMs: undefined },
        onEvent: () => {},
        ...{ mode: undefined },
      }),
    ).toBe('');
  });

  it('names an unknown key and the nested object where that key belongs', () => {
    expect(problemWith({ leaseMs: 200 })).toBe('unknown option leaseMs (did you mean timings.leaseMs?)');
    expect(problemWith({ timings: { lease: 1 } }, { prefix: 'sharding.' })).toBe(
      'unknown option sharding.timings.lease (did you mean sharding.timings.leaseMs?)',
    );
  });

  it('suggests the key an unknown one is a typo of, and says nothing when nothing is close', () => {
    expect(problemWith({ enabeld: true })).toBe('unknown option enabeld (did you mean enabled?)');
    expect(problemWith({ timings: { retrMs: 5 } })).toBe('unknown option timings.retrMs (did you mean timings.retryMs?)');
    expect(problemWith({ somethingElse: 1 })).toBe('unknown option somethingElse');
  });

  it('names a wrong type with the option, what it must be and what it got, never a whole object', () => {
    expect(problemWith({ timings: { leaseMs: '200' } })).toBe('timings.leaseMs must be a positive number of milliseconds, got "200"');
    expect(problemWith({ enabled: 'yes' })).toBe('enabled must be true or false, got "yes"');
    expect(problemWith({ logger: console.log })).toBe('logger must be a Logger, got a function');
    expect(problemWith({ labels: { a: 1 } })).toBe(
      'labels must be a non-empty string or an object whose values are each a non-empty string, got an object',
    );
    expect(problemWith({ timings: 5 })).toBe('timings must be an options object, got 5');
    expect(problemWith('fast')).toBe('the options must be an options object, got "fast"');
  });

  it('names a value outside a list of choices with the choices, and the choice it is a slip of', () => {
    expect(problemWith({ allow: ['exec', 'insecure'] })).toBe(
      'allow[1] must be one of "exec", "authProvider", "localFiles", "insecureTransport", got "insecure" (did you mean "insecureTransport"?)',
    );
    expect(problemWith({ mode: 'quick' })).toBe('mode must be one of "fast", "careful", got "quick"');
    expect(problemWith({ allow: 'exec' })).toContain('allow must be a list whose items are each one of');
  });

  it('reports every problem at once', () => {
    expect(problemWith({ name: '', leaseMs: 1, mode: 'x' })).toBe(
      '3 problems: name must be a non-empty string, got ""; unknown option leaseMs (did you mean timings.leaseMs?); mode must be one of "fast", "careful", got "x"',
    );
  });

  it('checks combinations once every value has the right type', () => {
    const retryShorter = (o: Options) =>
      o.timings?.retryMs !== undefined && o.timings.leaseMs !== undefined && o.timings.retryMs >= o.timings.leaseMs
        ? 'timings.retryMs must be shorter than timings.leaseMs'
        : undefined;
    expect(problemWith({ timings: { leaseMs: 5, retryMs: 10 } }, { combinations: [retryShorter] })).toBe(
      'timings.retryMs must be shorter than timings.leaseMs',
    );
    expect(problemWith({ timings: { leaseMs: 5, retryMs: 'x' } }, { combinations: [retryShorter] })).toContain('must be a positive');
  });

  it('does not take inherited keys for options', () => {
    expect(problemWith({ toString: 1 })).toBe('unknown option toString');
  });
});
