/**
 * @multicluster-runtime/envtest/gardener: a fake Gardener garden on the in-memory server. Shoots in project
 * namespaces, their `adminkubeconfig`/`viewerkubeconfig` subresources issuing short-lived kubeconfigs for API servers
 * the test puts behind them, the seed topology's extensions Clusters and `gardener` Secrets, and fixtures that move
 * shoots through Gardener's states.
 */
export type { GardenServer, GardenServerOptions, KubeconfigFailure } from './garden-server.js';
export { startGardenServer } from './garden-server.js';
export type { LastOperation, SeedClusterOptions, ShootFixtureOptions } from './garden-fixtures.js';
export { GardenFixtures, projectNamespace, technicalId } from './garden-fixtures.js';
export type { ShootApiServer } from './kubeconfig-request.js';
export { GardenRequestError } from './errors.js';
export { GARDENER_CORE_API_VERSION, GARDENER_EXTENSIONS_API_VERSION, extensionsClusterCrd, shootCrd } from './crds.js';
