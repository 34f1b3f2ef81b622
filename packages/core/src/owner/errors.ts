/**
 * Errors of setting owner references: each names a mistake the API server rejects or the garbage collector silently
 * mishandles, and says what to do instead. None goes away by retrying.
 */

export class OwnerReferenceError extends Error {
  override readonly name: string = 'OwnerReferenceError';
  readonly retryable: boolean = false;
}

/** The owner lacks what a reference needs (apiVersion, kind, name, uid): it was not read from the server. */
export class IncompleteOwnerError extends OwnerReferenceError {
  override readonly name = 'IncompleteOwnerError';
  constructor(
    readonly missing: string,
    owner: string,
  ) {
    super(`cannot reference owner ${owner}: it has no ${missing}; use the object as read from or returned by the API server`);
  }
}

/** The object already has a controller, and it is not this owner (Kubernetes allows one controller per object). */
export class AlreadyOwnedError extends OwnerReferenceError {
  override readonly name = 'AlreadyOwnedError';
  constructor(
    readonly object: string,
    readonly existingController: string,
  ) {
    super(
      `${object} is already controlled by ${existingController}; an object has at most one controller ` +
        '(use setOwnerReference for a non-controlling owner, or remove the other controller reference first)',
    );
  }
}

/** A namespaced owner and an object in another namespace: the garbage collector would look for the owner in the object's namespace. */
export class CrossNamespaceOwnerError extends OwnerReferenceError {
  override readonly name = 'CrossNamespaceOwnerError';
  constructor(owner: string, ownerNamespace: string, object: string, objectNamespace: string) {
    super(
      `cross-namespace owner references are disallowed: owner ${owner} is in namespace ${JSON.stringify(ownerNamespace)}, ` +
        `${object} in ${JSON.stringify(objectNamespace)}; put them in one namespace, or record the relation with setOrigin`,
    );
  }
}

/** A cluster-scoped object (no namespace) with a namespaced owner: Kubernetes treats the reference as unresolvable. */
export class ClusterScopedDependentError extends OwnerReferenceError {
  override readonly name = 'ClusterScopedDependentError';
  constructor(owner: string, ownerNamespace: string, object: string) {
    super(
      `cluster-scoped ${object} must not have a namespace-scoped owner (${owner} in namespace ${JSON.stringify(ownerNamespace)}); ` +
        'if the object is namespaced, set its metadata.namespace before setting the owner',
    );
  }
}
