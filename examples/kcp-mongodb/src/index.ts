/** The kcp MongoDB walk-through as a library: the API objects, the sync controller and the stand-in operator. */
export type { MongoDBCommunity } from './api.js';
export { EXPORT_NAME, GROUP, MONGODB, mongoApiExport, mongoDownstreamCrd, mongoResourceSchema } from './api.js';
export type { MongoSyncOptions } from './mongodb-sync.js';
export { FINALIZER, ORIGIN_PREFIX, downstreamKey, setupMongoSync } from './mongodb-sync.js';
export { setupStandInOperator } from './stand-in-operator.js';
