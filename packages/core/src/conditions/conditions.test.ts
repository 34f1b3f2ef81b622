/** Condition helpers: add, update, transition times, observedGeneration, removal and the predicates. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  conditionTime,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type Condition,
} from './conditions.js';

const t0 = '2026-01-01T00:00:00Z';
const t1 = '2026-01-01T00:05:00Z';

describe('setStatusCondition', () => {
  it('adds a missing condition with now as lastTransitionTime (whole seconds, UTC) and an empty message', () => {
    const conditions: Condition[] = [];
    const before = Date.now();
    expect(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Pending' })).toBe(true);
    expect(conditions).toEqual([
      { type: 'Ready', status: 'False', reason: 'Pending', message: '', lastTransitionTime: expect.any(String) },
    ]);
    const at = conditions[0]!.lastTransitionTime;
    expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(at)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(at)).toBeLessThanOrEqual(Date.now());
  });

  it('keeps lastTransitionTime when only reason, message or observedGeneration change, and reports the change', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Pending', lastTransitionTime: t0 });
    expect(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Pending' })).toBe(false);
    expect(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Waiting', message: 'for db' })).toBe(true);
    expect(
      setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Waiting', message: 'for db', observedGeneration: 3 }),
    ).toBe(true);
    expect(conditions).toEqual([
      { type: 'Ready', status: 'False', reason: 'Waiting', message: 'for db', observedGeneration: 3, lastTransitionTime: t0 },
    ]);
    // A given lastTransitionTime does not move the time when the status stays.
    expect(
      setStatusCondition(conditions, {
        type: 'Ready',
        status: 'False',
        reason: 'Waiting',
        message: 'for db',
        observedGeneration: 3,
        lastTransitionTime: t1,
      }),
    ).toBe(false);
    expect(conditions[0]!.lastTransitionTime).toBe(t0);
  });

  it('moves lastTransitionTime when the status changes, to the given time or now', () => {
    const conditions: Condition[] = [{ type: 'Ready', status: 'False', reason: 'Pending', message: '', lastTransitionTime: t0 }];
    expect(setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Synced', lastTransitionTime: t1 })).toBe(true);
    expect(conditions[0]).toMatchObject({ status: 'True', reason: 'Synced', lastTransitionTime: t1 });
    const before = conditionTime();
    expect(setStatusCondition(conditions, { type: 'Ready', status: 'Unknown', reason: 'Lost' })).toBe(true);
    const at = conditions[0]!.lastTransitionTime;
    expect(at >= before && at <= conditionTime()).toBe(true);
  });

  it('keeps one condition per type and leaves the others alone', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Synced', lastTransitionTime: t0 });
    setStatusCondition(conditions, { type: 'Degraded', status: 'False', reason: 'Fine', lastTransitionTime: t0 });
    setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Lost', lastTransitionTime: t1 });
    expect(conditions.map((c) => [c.type, c.status, c.lastTransitionTime])).toEqual([
      ['Ready', 'False', t1],
      ['Degraded', 'False', t0],
    ]);
  });

  it('drops observedGeneration when the new condition has none', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Synced', observedGeneration: 2 });
    expect(setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Synced' })).toBe(true);
    expect(conditions[0]).not.toHaveProperty('observedGeneration');
  });

  it('says how to call it when given no array, and refuses a condition without a type', () => {
    const status: { conditions?: Condition[] } = {};
    expect(() => setStatusCondition(status.conditions as unknown as Condition[], { type: 'Ready', status: 'True', reason: 'R' })).toThrow(
      /status\.conditions \?\?= \[\]/,
    );
    expect(setStatusCondition((status.conditions ??= []), { type: 'Ready', status: 'True', reason: 'R' })).toBe(true);
    expect(() => setStatusCondition([], { type: '', status: 'True', reason: 'R' })).toThrow(/type/);
  });
});

describe('find, remove and the predicates', () => {
  const conditions = (): Condition[] => [
    { type: 'Ready', status: 'True', reason: 'Synced', message: '', lastTransitionTime: t0 },
    { type: 'Degraded', status: 'False', reason: 'Fine', message: '', lastTransitionTime: t0 },
  ];

  it('finds by type and answers true/false/absent', () => {
    const c = conditions();
    expect(findStatusCondition(c, 'Ready')?.reason).toBe('Synced');
    expect(findStatusCondition(c, 'Nope')).toBeUndefined();
    expect(findStatusCondition(undefined, 'Ready')).toBeUndefined();
    expect(isStatusConditionTrue(c, 'Ready')).toBe(true);
    expect(isStatusConditionFalse(c, 'Ready')).toBe(false);
    expect(isStatusConditionFalse(c, 'Degraded')).toBe(true);
    expect(isStatusConditionTrue(c, 'Nope')).toBe(false);
    expect(isStatusConditionFalse(c, 'Nope')).toBe(false);
    expect(isStatusConditionPresentAndEqual(c, 'Degraded', 'False')).toBe(true);
    expect(isStatusConditionTrue(undefined, 'Ready')).toBe(false);
  });

  it('removes in place and says whether it did', () => {
    const c = conditions();
    expect(removeStatusCondition(c, 'Ready')).toBe(true);
    expect(removeStatusCondition(c, 'Ready')).toBe(false);
    expect(removeStatusCondition(undefined, 'Ready')).toBe(false);
    expect(c.map((x) => x.type)).toEqual(['Degraded']);
  });

  it('accept condition arrays typed elsewhere (status as a plain string) and keep their element type', () => {
    interface ForeignCondition {
      lastTransitionTime: string;
      message: string;
      observedGeneration?: number;
      reason: string;
      status: string;
      type: string;
    }
    const foreign: ForeignCondition[] = [];
    setStatusCondition(foreign, { type: 'Ready', status: 'True', reason: 'Synced' });
    expectTypeOf(findStatusCondition(foreign, 'Ready')).toEqualTypeOf<ForeignCondition | undefined>();
    expect(isStatusConditionTrue(foreign, 'Ready')).toBe(true);
  });
});
