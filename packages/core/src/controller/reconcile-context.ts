/**
 * The context one reconcile is given: a signal of its own (a child of its cluster's engagement, so listeners the
 * reconciler leaves on it go with it) and a logger that names the request and a reconcile ID. Both are made when first
 * read: most reconciles of a busy controller never log, and many never pass the signal on, so a reconcile that does
 * not use them costs no AbortController, logger or UUID.
 *
 * `signal` and `log` are own enumerable getters, so `{ ...ctx, log: ctx.log.with(...) }` keeps the signal. The getters
 * are two functions shared by every context (defined once, reading private fields): getters written in an object
 * literal would be new closures per reconcile, ~600 bytes each time against ~80.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.js';
import type { ReconcileContext, Request } from '../reconcile/types.js';
import { linkedAbort, type LinkedAbort } from '../signal/linked.js';

let signalGetter: PropertyDescriptor;
let logGetter: PropertyDescriptor;

class LazyReconcileContext {
  declare readonly signal: AbortSignal;
  declare readonly log: Logger;
  readonly clusterName: string;
  readonly #req: Request;
  readonly #parent: AbortSignal | undefined;
  readonly #controllerLog: Logger;
  #abort: LinkedAbort | undefined;
  #logger: Logger | undefined;
  #over = false;

  constructor(req: Request, parent: AbortSignal | undefined, controllerLog: Logger) {
    this.clusterName = req.clusterName;
    this.#req = req;
    this.#parent = parent;
    this.#controllerLog = controllerLog;
    Object.defineProperty(this, 'signal', signalGetter);
    Object.defineProperty(this, 'log', logGetter);
  }

  /** The reconcile returned: unlink its signal from the engagement. */
  static end(ctx: LazyReconcileContext): void {
    ctx.#over = true;
    ctx.#abort?.dispose();
  }

  static {
    signalGetter = {
      enumerable: true,
      get(this: LazyReconcileContext): AbortSignal {
        if (!this.#abort) {
          this.#abort = linkedAbort(this.#parent);
          // Read after the reconcile returned: its work is over, so the signal is not linked any more.
          if (this.#over) this.#abort.dispose();
        }
        return this.#abort.signal;
      },
    };
    logGetter = {
      enumerable: true,
      get(this: LazyReconcileContext): Logger {
        const req = this.#req;
        return (this.#logger ??= this.#controllerLog.with({
          cluster: req.clusterName,
          namespace: req.namespace,
          name: req.name,
          reconcileID: randomUUID(),
        }));
      },
    };
  }
}

/** A reconcile's context; pass it to `endReconcileContext` once the reconcile returned. */
export function lazyReconcileContext(req: Request, parent: AbortSignal | undefined, controllerLog: Logger): ReconcileContext {
  return new LazyReconcileContext(req, parent, controllerLog);
}

/** The reconcile returned: its signal, if one was made, is unlinked from the engagement (and not aborted). */
export function endReconcileContext(ctx: ReconcileContext): void {
  LazyReconcileContext.end(ctx as LazyReconcileContext);
}
