/**
 * The APIResourceSchema the tests export from the fake kcp: a namespaced `Thing` (example.com/v1) that keeps any
 * field, so tests write whatever they need into it.
 */
export const THING = { apiVersion: 'example.com/v1', kind: 'Thing' };

export const thingSchema = {
  metadata: { name: 'v1.things.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Thing', listKind: 'ThingList', plural: 'things', singular: 'thing' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        subresources: { status: {} },
      },
    ],
  },
};
