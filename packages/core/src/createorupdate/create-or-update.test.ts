/** createOrUpdate's refusals, found before anything is sent. */
import { describe, expect, it } from 'vitest';
import type { Client } from '../client/types.js';
import { createOrPatch, createOrUpdate } from './create-or-update.js';
import { ObjectKeyMissingError } from './errors.js';

const unusable = new Proxy({} as Client, {
  get: () => () => Promise.reject(new Error('nothing may be sent')),
});

describe('createOrUpdate and createOrPatch', () => {
  it('refuse an object that names no object, before any request', async () => {
    await expect(createOrUpdate(unusable, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, () => {})).rejects.toThrow(
      ObjectKeyMissingError,
    );
    await expect(createOrPatch(unusable, { metadata: { name: 'x' } }, () => {})).rejects.toThrow(/no apiVersion and kind/);
  });
});
