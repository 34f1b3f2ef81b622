import { expect, test } from 'vitest';
import { ClusterNotFoundError, isClusterNotFound } from './errors.js';
import { TerminalError, isTerminalError } from '../reconcile/errors.js';

test('ClusterNotFoundError is matched through cause chains', () => {
  const err = new ClusterNotFoundError('east');
  expect(err).toBeInstanceOf(ClusterNotFoundError);
  expect(err.message).toBe('cluster "east" not found');
  expect(isClusterNotFound(new Error('reconcile failed', { cause: err }))).toBe(true);
  expect(isClusterNotFound(new Error('other'))).toBe(false);
});

test('TerminalError is matched through cause chains', () => {
  expect(isTerminalError(new Error('wrapped', { cause: new TerminalError('bad spec') }))).toBe(true);
  expect(isTerminalError(new Error('transient'))).toBe(false);
});
