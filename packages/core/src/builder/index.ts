/**
 * `@multicluster-runtime/core/builder`: the builder (`controllerManagedBy`): a controller's watches, owners and
 * options declared in one chain; its errors. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
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
