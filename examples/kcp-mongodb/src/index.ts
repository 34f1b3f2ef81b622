/** The kcp MongoDB walk-through as a library: the API objects, the sync controller and the stand-in operator. */
export type { MongoDBCommunity } from './api.js';
export { EXPORT_NAME, GROUP, MONGODB, mongoApiExport, mongoDownstreamCrd, mongoResourceSchema } from './api.js';
export type { Origin } from './downstream-name.js';
export { MANAGED_LABEL, ORIGIN_CLUSTER, ORIGIN_NAME, ORIGIN_NAMESPACE, downstreamName, originOf } from './downstream-name.js';
export type { MongoSyncOptions } from './mongodb-sync.js';
export { FINALIZER, setupMongoSync } from './mongodb-sync.js';
export { setupStandInOperator } from './stand-in-operator.js';
