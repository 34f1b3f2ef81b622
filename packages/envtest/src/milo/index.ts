/**
 * @multicluster-runtime/envtest/milo: a fake Milo on the in-memory server. The Project and ProjectControlPlane CRDs,
 * each project's control plane where Milo serves it, and fixtures that create projects and flip their readiness.
 */
export type { MiloServer, MiloServerOptions } from './milo-server.js';
export { startMiloServer } from './milo-server.js';
export type { ProjectFixtureOptions, ReadinessCondition } from './milo-fixtures.js';
export { MiloFixtures } from './milo-fixtures.js';
export { MiloRequestError } from './errors.js';
export { MILO_INFRA_GROUP, MILO_PROJECT_GROUP, MILO_VERSION, projectControlPlaneCrd, projectCrd } from './crds.js';
export { projectControlPlaneMount } from './control-plane-mount.js';
