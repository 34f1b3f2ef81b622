import { describe, expect, test } from 'vitest';
import { globBase, globToRegExp, isGlob } from './glob.js';

describe('globToRegExp', () => {
  test.each([
    ['/k/*.kubeconfig', '/k/a.kubeconfig', true],
    ['/k/*.kubeconfig', '/k/sub/a.kubeconfig', false],
    ['/k/*.kubeconfig', '/k/.hidden.kubeconfig', false],
    ['/k/**/*.yaml', '/k/a.yaml', true],
    ['/k/**/*.yaml', '/k/x/y/a.yaml', true],
    ['/k/**/*.yaml', '/k/.git/a.yaml', false],
    ['/k/**', '/k/x/y', true],
    ['/k/?.yaml', '/k/a.yaml', true],
    ['/k/?.yaml', '/k/ab.yaml', false],
    ['/k/[ab].yaml', '/k/b.yaml', true],
    ['/k/[!ab].yaml', '/k/c.yaml', true],
    ['/k/[!ab].yaml', '/k/a.yaml', false],
    ['/k/*.{yaml,yml}', '/k/a.yml', true],
    ['/k/*.{yaml,yml}', '/k/a.json', false],
    ['/k/a+b(1).yaml', '/k/a+b(1).yaml', true],
    ['/k/a.yaml', '/k/aXyaml', false],
  ])('%s against %s is %s', (pattern, path, expected) => {
    expect(globToRegExp(pattern).test(path)).toBe(expected);
  });

  test('rejects unbalanced syntax', () => {
    expect(() => globToRegExp('/k/[ab.yaml')).toThrow(/unbalanced "\["/);
    expect(() => globToRegExp('/k/{a,b.yaml')).toThrow(/unbalanced "\{"/);
  });
});

test('globBase splits off the literal directory', () => {
  expect(globBase('/etc/fleet/*.kubeconfig')).toEqual({ base: '/etc/fleet', segments: ['*.kubeconfig'] });
  expect(globBase('/etc/*/x/**/k')).toEqual({ base: '/etc', segments: ['*', 'x', '**', 'k'] });
  expect(globBase('/*.yaml')).toEqual({ base: '/', segments: ['*.yaml'] });
  expect(isGlob('/etc/fleet/a.yaml')).toBe(false);
});
