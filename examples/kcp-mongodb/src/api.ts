/**
 * The MongoDB API of the walk-through: the APIResourceSchema and APIExport the provider publishes in kcp (as the
 * seed's `sample/mongo-api.yaml`), and the MongoDBCommunity CRD the downstream cluster's operator serves.
 */
import type { KubeObject, ObjectKind } from '@multicluster-runtime/core';

export const GROUP = 'mongodbcommunity.mongodb.com';
export const MONGODB: ObjectKind = { apiVersion: `${GROUP}/v1`, kind: 'MongoDBCommunity' };
export const EXPORT_NAME = 'mongodb';

export interface MongoDBCommunity extends KubeObject {
  spec?: { members?: number; type?: string; version?: string };
  status?: { phase?: string; version?: string };
}

const names = { kind: 'MongoDBCommunity', listKind: 'MongoDBCommunityList', plural: 'mongodbcommunity', singular: 'mongodbcommunity' };

const versions = [
  {
    name: 'v1',
    served: true,
    storage: true,
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { members: { type: 'integer' }, type: { type: 'string' }, version: { type: 'string' } } },
          status: { type: 'object', properties: { phase: { type: 'string' }, version: { type: 'string' } } },
        },
      },
    },
    subresources: { status: {} },
  },
];

/** The consumer-facing schema (name `<prefix>.<plural>.<group>`, as kcp requires). */
export const mongoResourceSchema = {
  apiVersion: 'apis.kcp.io/v1alpha1',
  kind: 'APIResourceSchema',
  metadata: { name: `v1.mongodbcommunity.${GROUP}` },
  spec: { group: GROUP, names, scope: 'Namespaced', versions },
};

/** The export, in the seed's v1alpha1 form. */
export const mongoApiExport = {
  apiVersion: 'apis.kcp.io/v1alpha1',
  kind: 'APIExport',
  metadata: { name: EXPORT_NAME },
  spec: { latestResourceSchemas: [mongoResourceSchema.metadata.name] },
};

/** What the MongoDB Community Operator installs on the downstream cluster. */
export const mongoDownstreamCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `mongodbcommunity.${GROUP}` },
  spec: { group: GROUP, names, scope: 'Namespaced', versions },
};
