/**
 * `@multicluster-runtime/core/builder`: the builder (`controllerManagedBy`): a controller's watches, owners and
 * options declared in one chain; its errors. The package root exports the part of this most programs need.
 */
export type { BuilderControllerOptions } from './builder.js';
export { Builder, controllerManagedBy } from './builder.js';
export type { EngageOptions, OwnsOptions, WatchOptions } from './options.js';
export {
  AlreadyBuiltError,
  BuilderError,
  DuplicateControllerNameError,
  ForCalledTwiceError,
  MissingNameError,
  MissingReconcilerError,
  NoWatchesError,
  OwnsWithoutForError,
  WatchEngagesNothingError,
} from './errors.js';
