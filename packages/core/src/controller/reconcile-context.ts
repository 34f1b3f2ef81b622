/**
 * The context one reconcile is given: a signal of its own (a child of its cluster's engagement, so listeners the
 * reconciler leaves on it go with it) and a logger that names the request and a reconcile ID. Both are made when first
 * read: most reconciles of a busy controller never log, and many never pass the signal on, so a reconcile that does
 * not use them costs no AbortController, logger or UUID. The context is a plain object whose `signal` and `log` are
 * own enumerable getters, so `{ ...ctx, log: ctx.log.with(...) }` keeps the signal.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.js';
import type { ReconcileContext, Request } from '../reconcile/types.js';
import { linkedAbort, type LinkedAbort } from '../signal/linked.js';

/** A reconcile's context and what ends it. */
export interface LazyReconcileContext {
  readonly ctx: ReconcileContext;
  /** The reconcile returned: unlink its signal from the engagement. */
  readonly dispose: () => void;
}

export function lazyReconcileContext(req: Request, parent: AbortSignal | undefined, controllerLog: Logger): LazyReconcileContext {
  let abort: LinkedAbort | undefined;
  let logger: Logger | undefined;
  let over = false;
  const ctx: ReconcileContext = {
    clusterName: req.clusterName,
    get signal(): AbortSignal {
      if (!abort) {
        abort = linkedAbort(parent);
        // Read after the reconcile returned: its work is over, so the signal is not linked any more.
        if (over) abort.dispose();
      }
      return abort.signal;
    },
    get log(): Logger {
      return (logger ??= controllerLog.with({
        cluster: req.clusterName,
        namespace: req.namespace,
        name: req.name,
        reconcileID: randomUUID(),
      }));
    },
  };
  return {
    ctx,
    dispose: () => {
      over = true;
      abort?.dispose();
    },
  };
}
