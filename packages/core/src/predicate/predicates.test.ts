import { describe, expect, it } from 'vitest';
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from '../handler/types.js';
import { testCluster } from '../handler/fixtures.test-util.js';
import { LabelSelectorError, parseLabelSelector } from '@multicluster-runtime/apimachinery';
import { createLogger } from '../log/logger.js';
import type { KubeObject, ObjectMeta } from '../object/types.js';
import {
  annotationChangedPredicate,
  generationChangedPredicate,
  labelChangedPredicate,
  resourceVersionChangedPredicate,
} from './changed.js';
import { andPredicates, notPredicate, orPredicates } from './combinators.js';
import { evaluatePredicates } from './evaluate.js';
import { predicateFuncs } from './funcs.js';
import { labelSelectorPredicate } from './label-selector.js';
import type { Predicate } from './types.js';

const cluster = testCluster('east');
const obj = (meta: Partial<ObjectMeta> = {}): KubeObject => ({ metadata: { name: 'o', namespace: 'ns', ...meta } });
const create = (o: KubeObject): CreateEvent => ({ clusterName: 'east', cluster, object: o, isInInitialList: false });
const update = (a: KubeObject, b: KubeObject): UpdateEvent => ({ clusterName: 'east', cluster, objectOld: a, objectNew: b });
const del = (o: KubeObject): DeleteEvent => ({ clusterName: 'east', cluster, object: o, deleteStateUnknown: false });
const generic = (o: KubeObject): GenericEvent => ({ clusterName: 'east', cluster, object: o });

/** What a source would decide for each event type, with missing callbacks passing. */
function decide(p: Predicate, events: { c?: CreateEvent; u?: UpdateEvent; d?: DeleteEvent; g?: GenericEvent }) {
  return {
    create: events.c ? evaluatePredicates([p], 'create', events.c) : undefined,
    update: events.u ? evaluatePredicates([p], 'update', events.u) : undefined,
    delete: events.d ? evaluatePredicates([p], 'delete', events.d) : undefined,
    generic: events.g ? evaluatePredicates([p], 'generic', events.g) : undefined,
  };
}

describe('change predicates', () => {
  it.each([
    ['generation', generationChangedPredicate(), { generation: 1 }, { generation: 2 }, { generation: 1, labels: { a: 'b' } }],
    ['labels', labelChangedPredicate(), { labels: { a: '1' } }, { labels: { a: '2' } }, { labels: { a: '1' }, generation: 9 }],
    [
      'annotations',
      annotationChangedPredicate(),
      { annotations: { a: '1' } },
      { annotations: {} },
      { annotations: { a: '1' }, labels: { x: 'y' } },
    ],
    [
      'resourceVersion',
      resourceVersionChangedPredicate(),
      { resourceVersion: '1' },
      { resourceVersion: '2' },
      { resourceVersion: '1', generation: 5 },
    ],
  ])('%s changed: passes a changed update, drops an unchanged one, passes other events', (_n, p, before, changed, same) => {
    expect(decide(p, { u: update(obj(before), obj(changed)) }).update).toBe(true);
    expect(decide(p, { u: update(obj(before), obj(same)) }).update).toBe(false);
    expect(decide(p, { c: create(obj()), d: del(obj()), g: generic(obj()) })).toEqual({
      create: true,
      update: undefined,
      delete: true,
      generic: true,
    });
  });

  it('treats absent and empty labels or annotations as equal, and key order as irrelevant', () => {
    expect(evaluatePredicates([labelChangedPredicate()], 'update', update(obj(), obj({ labels: {} })))).toBe(false);
    expect(evaluatePredicates([annotationChangedPredicate()], 'update', update(obj({ annotations: {} }), obj()))).toBe(false);
    expect(
      evaluatePredicates(
        [labelChangedPredicate()],
        'update',
        update(obj({ labels: { a: '1', b: '2' } }), obj({ labels: { b: '2', a: '1' } })),
      ),
    ).toBe(false);
    expect(evaluatePredicates([labelChangedPredicate()], 'update', update(obj({ labels: { a: '1' } }), obj({ labels: { b: '1' } })))).toBe(
      true,
    );
  });

  it('drops an update that lacks an object', () => {
    const broken = { clusterName: 'east', cluster, objectOld: undefined, objectNew: obj() } as unknown as UpdateEvent;
    expect(evaluatePredicates([generationChangedPredicate()], 'update', broken)).toBe(false);
  });
});

describe('predicateFuncs and labelSelectorPredicate', () => {
  it('applies the function to the object, and to the new object on updates', () => {
    const p = predicateFuncs((o) => o.metadata.name === 'keep');
    const keep = obj({ name: 'keep' });
    const drop = obj({ name: 'drop' });
    expect(decide(p, { c: create(keep), u: update(drop, keep), d: del(drop), g: generic(keep) })).toEqual({
      create: true,
      update: true,
      delete: false,
      generic: true,
    });
    expect(evaluatePredicates([p], 'update', update(keep, drop))).toBe(false);
  });

  it.each([
    ['a string', 'app=web,tier!=db'],
    ['a map', { app: 'web' }],
    ['a metav1.LabelSelector', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] }],
    ['a parsed selector', parseLabelSelector('app in (web)')],
  ])('selects by labels given %s', (_n, selector) => {
    const p = labelSelectorPredicate(selector);
    expect(evaluatePredicates([p], 'create', create(obj({ labels: { app: 'web' } })))).toBe(true);
    expect(evaluatePredicates([p], 'create', create(obj({ labels: { app: 'api' } })))).toBe(false);
    expect(evaluatePredicates([p], 'create', create(obj()))).toBe(false);
  });

  it('rejects a bad selector when the predicate is built', () => {
    expect(() => labelSelectorPredicate('app in web')).toThrow(LabelSelectorError);
  });
});

describe('andPredicates / orPredicates / notPredicate', () => {
  const yes: Predicate = predicateFuncs(() => true);
  const no: Predicate = predicateFuncs(() => false);
  const onlyUpdate: Predicate = { update: () => false };

  it('and passes when all pass; or when any passes; not inverts', () => {
    const e = create(obj());
    expect(evaluatePredicates([andPredicates(yes, yes)], 'create', e)).toBe(true);
    expect(evaluatePredicates([andPredicates(yes, no)], 'create', e)).toBe(false);
    expect(evaluatePredicates([orPredicates(no, yes)], 'create', e)).toBe(true);
    expect(evaluatePredicates([orPredicates(no, no)], 'create', e)).toBe(false);
    expect(evaluatePredicates([notPredicate(no)], 'create', e)).toBe(true);
    expect(evaluatePredicates([notPredicate(yes)], 'create', e)).toBe(false);
    expect(evaluatePredicates([andPredicates()], 'create', e)).toBe(true);
    expect(evaluatePredicates([orPredicates()], 'create', e)).toBe(false);
  });

  it('counts a missing callback as passing', () => {
    expect(evaluatePredicates([andPredicates(onlyUpdate, yes)], 'create', create(obj()))).toBe(true);
    expect(evaluatePredicates([andPredicates(onlyUpdate, yes)], 'update', update(obj(), obj()))).toBe(false);
    expect(evaluatePredicates([notPredicate(onlyUpdate)], 'delete', del(obj()))).toBe(false);
    expect(evaluatePredicates([orPredicates(onlyUpdate, no)], 'generic', generic(obj()))).toBe(true);
  });

  it('composes change predicates as users do', () => {
    const p = orPredicates(generationChangedPredicate(), labelChangedPredicate());
    expect(evaluatePredicates([p], 'update', update(obj({ generation: 1 }), obj({ generation: 1, labels: { a: 'b' } })))).toBe(true);
    expect(
      evaluatePredicates([p], 'update', update(obj({ generation: 1, resourceVersion: '1' }), obj({ generation: 1, resourceVersion: '2' }))),
    ).toBe(false);
  });

  it('keeps `this` for predicates written as classes', () => {
    class MinGeneration implements Predicate {
      constructor(private readonly min: number) {}
      update(e: UpdateEvent): boolean {
        return (e.objectNew.metadata.generation ?? 0) >= this.min;
      }
    }
    expect(evaluatePredicates([andPredicates(new MinGeneration(2))], 'update', update(obj(), obj({ generation: 3 })))).toBe(true);
    expect(evaluatePredicates([new MinGeneration(2)], 'update', update(obj(), obj({ generation: 1 })))).toBe(false);
  });
});

describe('evaluatePredicates', () => {
  it('passes everything with no predicates and stops at the first that drops', () => {
    const calls: string[] = [];
    const track = (name: string, result: boolean): Predicate => ({ create: () => (calls.push(name), result) });
    expect(evaluatePredicates([], 'create', create(obj()))).toBe(true);
    expect(evaluatePredicates([track('a', true), track('b', false), track('c', true)], 'create', create(obj()))).toBe(false);
    expect(calls).toEqual(['a', 'b']);
  });

  it('counts a throwing predicate as false and logs it with the object’s coordinates', () => {
    const records: Array<{ msg: string; fields: Record<string, unknown> }> = [];
    const log = createLogger({ sink: (_l, msg, fields) => records.push({ msg, fields }) });
    const boom: Predicate = {
      delete: () => {
        throw new Error('kaboom');
      },
    };
    expect(evaluatePredicates([boom], 'delete', del(obj({ name: 'x', namespace: 'y' })), log)).toBe(false);
    expect(evaluatePredicates([andPredicates(boom)], 'delete', del(obj()), log)).toBe(false);
    expect(records).toHaveLength(2);
    expect(records[0]).toEqual({
      msg: 'predicate 0 threw on delete event; event dropped',
      fields: { error: 'kaboom', errorName: 'Error', cluster: 'east', namespace: 'y', name: 'x' },
    });
  });
});
