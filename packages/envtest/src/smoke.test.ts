import { expect, test } from 'vitest';
import { placeholder } from '@multicluster-runtime/core';
test('workspace source resolution', () => { expect(placeholder).toBe(1); });
