/**
 * The context one reconcile is given: a signal of its own (a child of its cluster's engagement, so listeners the
 * reconciler leaves on it go with it) and a logger that names the request and a reconcile ID. Both are made when first
 * read: most reconciles of a busy controller never log, and many never pass the signal on, so a reconcile that does
 * not use them costs no AbortController, logger or UUID.
 */
import { randomUUID } from 'node:crypto';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Logger } from '../log/logger.js';
import type { ReconcileContext, Request } from '../reconcile/types.js';
import { linkedAbort, type LinkedAbort } from '../signal/linked.js';

export class LazyReconcileContext implements ReconcileContext {
  readonly clusterName: ClusterName;
  private abort: LinkedAbort | undefined;
  private logger: Logger | undefined;
  private over = false;

  constructor(
    private readonly req: Request,
    private readonly parent: AbortSignal | undefined,
    private readonly controllerLog: Logger,
  ) {
    this.clusterName = req.clusterName;
  }

  get signal(): AbortSignal {
    if (!this.abort) {
      this.abort = linkedAbort(this.parent);
      // Read after the reconcile returned: its work is over, so the signal is not linked any more.
      if (this.over) this.abort.dispose();
    }
    return this.abort.signal;
  }

  get log(): Logger {
    return (this.logger ??= this.controllerLog.with({
      cluster: this.req.clusterName,
      namespace: this.req.namespace,
      name: this.req.name,
      reconcileID: randomUUID(),
    }));
  }

  /** The reconcile returned: unlink its signal from the engagement. */
  dispose(): void {
    this.over = true;
    this.abort?.dispose();
  }
}
