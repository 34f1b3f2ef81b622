/**
 * Errors of the controller builder: every one is a mistake in how the builder was called, so none goes away by
 * retrying; each names the call to fix.
 */
export class BuilderError extends Error {
  override readonly name: string = 'BuilderError';
  readonly retryable = false;
}

/** `for()` was called more than once (a controller has one primary kind; use `watches()` for others). */
export class ForCalledTwiceError extends BuilderError {
  override readonly name = 'ForCalledTwiceError';
  constructor(first: string, second: string) {
    super(`for() may only be called once: got ${first} and then ${second}; watch further kinds with watches()`);
  }
}

/** Another controller of the same manager has this name (names label logs and metrics, so they must be unique). */
export class DuplicateControllerNameError extends BuilderError {
  override readonly name = 'DuplicateControllerNameError';
  constructor(controller: string) {
    super(`a controller named ${JSON.stringify(controller)} was already built for this manager; give this one another name with named()`);
  }
}

/** Neither `for()` nor `named()` gave the controller a name. */
export class MissingNameError extends BuilderError {
  override readonly name = 'MissingNameError';
  constructor() {
    super('one of for() or named() must be called so the controller has a name');
  }
}

/** `owns()` needs the owner's kind, which `for()` sets. */
export class OwnsWithoutForError extends BuilderError {
  override readonly name = 'OwnsWithoutForError';
  constructor(owned: string) {
    super(`owns(${owned}) requires for() to name the owner kind`);
  }
}

/** Nothing to watch: no for(), owns(), watches() or watchesRawSource(). */
export class NoWatchesError extends BuilderError {
  override readonly name = 'NoWatchesError';
  constructor(controller: string) {
    super(`controller ${JSON.stringify(controller)} has nothing to watch: call for(), owns(), watches() or watchesRawSource()`);
  }
}

/** A watch that engages neither the local cluster nor provider clusters would never deliver an event. */
export class WatchEngagesNothingError extends BuilderError {
  override readonly name = 'WatchEngagesNothingError';
  constructor(what: string) {
    super(`${what} engages no cluster: engageWithLocalCluster and engageWithProviderClusters are both false`);
  }
}

/** `build()`/`complete()` needs a reconciler. */
export class MissingReconcilerError extends BuilderError {
  override readonly name = 'MissingReconcilerError';
  constructor() {
    super('complete()/build() needs a reconciler: an object with reconcile(req, ctx) or a function');
  }
}

/** `build()`/`complete()` was called twice on the same builder. */
export class AlreadyBuiltError extends BuilderError {
  override readonly name = 'AlreadyBuiltError';
  constructor(controller: string) {
    super(`the builder of controller ${JSON.stringify(controller)} was already built; start a new one with controllerManagedBy()`);
  }
}
