import { describe, expect, it } from 'vitest';
import { LabelSelectorError } from './errors.js';
import { everythingSelector, labelSelectorFromObject, parseLabelSelector } from './selector.js';

describe('parseLabelSelector (string grammar)', () => {
  const labels = { app: 'web', tier: 'front', version: '3', empty: '', big: '9007199254740993', neg: '-5' };

  it.each([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app = web', true],
    ['app=db', false],
    ['app!=db', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app in (db)', false],
    ['app notin (db, cache)', true],
    ['app notin (web)', false],
    ['missing notin (x)', true],
    ['missing in (x)', false],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['empty=', true],
    ['empty in ()', true],
    ['app=web,tier=front', true],
    ['app=web,tier=back', false],
    ['app=web, tier in (front), !legacy, version', true],
    ['version>2', true],
    ['version<3', false],
    ['app>1', false],
    ['big>9007199254740992', true],
    ['big<9007199254740993', false],
    ['neg<-1', true],
    ['neg>+0', false],
    ['example.com/role!=x', true],
    ['app=web,app!=db', true],
  ])('%j matches %j', (selector, want) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(want);
  });

  it('treats absent labels as an empty set', () => {
    expect(parseLabelSelector('a!=b').matches(undefined)).toBe(true);
    expect(parseLabelSelector('a notin (b)').matches()).toBe(true);
    expect(parseLabelSelector('!a').matches()).toBe(true);
    expect(parseLabelSelector('a').matches()).toBe(false);
    expect(parseLabelSelector('a in (b)').matches({})).toBe(false);
  });

  it('does not treat inherited object properties as labels', () => {
    expect(parseLabelSelector('constructor').matches({})).toBe(false);
    expect(parseLabelSelector('!toString').matches({})).toBe(true);
  });

  it.each([
    ['app=web', 'app=web'],
    ['app==web', 'app=web'],
    [' tier in (b, a, a) , app ', 'app,tier in (a,b)'],
    ['!z,a notin (x)', 'a notin (x),!z'],
    ['v > 10', 'v>10'],
    ['a=', 'a='],
  ])('prints %j canonically as %j, which parses back to the same selector', (input, canonical) => {
    const s = parseLabelSelector(input);
    expect(s.toString()).toBe(canonical);
    expect(parseLabelSelector(s.toString()).toString()).toBe(canonical);
  });

  it.each([
    ['app=web,', "found 'end of string', expected: '!' or a key"],
    [',app', "found ',', expected: '!' or a key"],
    ['app web', "found 'web'"],
    ['app in web', "found 'web', expected: '('"],
    ['app in (a b)', "found 'b', expected: ',' or ')'"],
    ['app in (a', "found 'end of string'"],
    ['app notin', "found 'end of string', expected: '('"],
    ['app=(x)', "found '(', expected: a value"],
    ['!app=web', "found '=', expected: ',' or end of string"],
    ['!', "found 'end of string', expected: a key"],
    ['=web', "found '=', expected: '!' or a key"],
    ['app=we b', "found 'b'"],
    ['-bad=x', 'name part must consist of'],
    ['Example.com/x=y', 'prefix part must be a lowercase DNS subdomain'],
    ['/x=y', 'prefix part must be non-empty'],
    ['a/=y', 'name part must be non-empty'],
    [`${'k'.repeat(64)}=v`, 'at most 63 characters'],
    [`k=${'v'.repeat(64)}`, 'at most 63 characters'],
    ['k=-v', 'value "-v"'],
    ['version>abc', 'integer value'],
    ['version<', 'integer value'],
    ['in=x', "found 'in'"],
  ])('rejects %j with a clear error', (selector, message) => {
    let caught: unknown;
    try {
      parseLabelSelector(selector);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LabelSelectorError);
    const err = caught as LabelSelectorError;
    expect(err.message).toContain(message);
    expect(err.message).toContain(JSON.stringify(selector));
    expect(err.retryable).toBe(false);
    expect(err.position).toBeTypeOf('number');
  });
});

describe('parseLabelSelector (map form)', () => {
  it('requires every pair to match', () => {
    const s = parseLabelSelector({ b: '2', a: '1' });
    expect(s.toString()).toBe('a=1,b=2');
    expect(s.matches({ a: '1', b: '2', c: '3' })).toBe(true);
    expect(s.matches({ a: '1' })).toBe(false);
    expect(parseLabelSelector({}).empty).toBe(true);
    expect(parseLabelSelector({}).matches({ any: 'thing' })).toBe(true);
  });

  it('rejects invalid keys, values and non-objects', () => {
    expect(() => parseLabelSelector({ 'bad key': 'x' })).toThrow(LabelSelectorError);
    expect(() => parseLabelSelector({ a: 'b c' })).toThrow(LabelSelectorError);
    expect(() => parseLabelSelector({ a: 1 } as unknown as Record<string, string>)).toThrow(/must be a string/);
    expect(() => parseLabelSelector(null as unknown as string)).toThrow(LabelSelectorError);
    expect(() => parseLabelSelector(['a'] as unknown as string)).toThrow(LabelSelectorError);
  });
});

describe('labelSelectorFromObject (metav1.LabelSelector)', () => {
  it('ANDs matchLabels and matchExpressions', () => {
    const s = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['front', 'edge'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist', values: [] },
      ],
    });
    expect(s.toString()).toBe('app=web,env notin (prod),!legacy,owner,tier in (edge,front)');
    expect(s.matches({ app: 'web', tier: 'edge', owner: 'me' })).toBe(true);
    expect(s.matches({ app: 'web', tier: 'edge', owner: 'me', env: 'prod' })).toBe(false);
    expect(s.matches({ app: 'web', tier: 'edge', owner: 'me', legacy: 'y' })).toBe(false);
    expect(s.matches({ app: 'web', tier: 'back', owner: 'me' })).toBe(false);
  });

  it('selects everything when empty', () => {
    expect(labelSelectorFromObject({}).matches({ a: 'b' })).toBe(true);
    expect(everythingSelector.matches()).toBe(true);
    expect(everythingSelector.toString()).toBe('');
  });

  it.each([
    [{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, 'operator "Gt" is not one of'],
    [{ matchExpressions: [{ key: 'a', operator: 'constructor' }] }, 'operator "constructor" is not one of'],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, 'needs at least one value'],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'takes no values'],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: 'x' }] }, 'values must be a list of strings'],
    [{ matchExpressions: [{ key: 'bad key', operator: 'Exists' }] }, 'name part must consist of'],
    [{ matchLabels: { a: 'not valid' } }, 'value "not valid"'],
  ])('rejects %j', (selector, message) => {
    expect(() => labelSelectorFromObject(selector as never)).toThrow(message);
    expect(() => labelSelectorFromObject(selector as never)).toThrow(LabelSelectorError);
  });
});
