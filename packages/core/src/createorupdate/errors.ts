/** Errors of createOrUpdate and createOrPatch: mistakes in the call, found before anything is written. */

export class CreateOrUpdateError extends Error {
  override readonly name: string = 'CreateOrUpdateError';
  readonly retryable: boolean = false;
}

/** `obj` does not name an object: it needs apiVersion, kind and metadata.name (and a namespace for namespaced kinds). */
export class ObjectKeyMissingError extends CreateOrUpdateError {
  override readonly name = 'ObjectKeyMissingError';
  constructor(readonly missing: string) {
    super(`createOrUpdate: the object has no ${missing}; set it before the call (it names the object to read)`);
  }
}

/** `mutate` changed the object's name or namespace, which would write another object than the one read. */
export class MutateChangedKeyError extends CreateOrUpdateError {
  override readonly name = 'MutateChangedKeyError';
  constructor(readonly key: { namespace?: string; name: string }) {
    super(
      `createOrUpdate: mutate must not change the object's name or namespace (was ${key.namespace ? `${key.namespace}/` : ''}${key.name})`,
    );
  }
}
