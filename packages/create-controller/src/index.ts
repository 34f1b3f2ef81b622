/**
 * @multicluster-runtime/create-controller: the scaffolder behind `npm init @multicluster-runtime/controller`, also
 * usable as a library (write a project from a script or a test).
 */
export type { ScaffoldOptions, ScaffoldResult } from './scaffold.js';
export { checkProjectName, renderProject, scaffold } from './scaffold.js';
export type { ProjectSettings } from './templates/project.js';
export type { Mount, PolicyRule, ProviderChoice, ProviderId } from './providers.js';
export { providerChoice, providerIds } from './providers.js';
export type { PinnedVersions } from './versions.js';
export { pinnedVersions } from './versions.js';
export { TargetNotEmptyError, UsageError, VersionTableError } from './errors.js';
