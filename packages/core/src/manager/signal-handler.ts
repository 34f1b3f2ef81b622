/**
 * Opt-in shutdown on SIGTERM/SIGINT (controller-runtime's SetupSignalHandler): the first signal aborts the returned
 * AbortSignal so the manager shuts down gracefully; a second one exits at once with code 1, for when shutdown hangs.
 */

export interface SignalHandlerOptions {
  /** Default SIGTERM and SIGINT. */
  signals?: NodeJS.Signals[];
  /** What a second signal does. Default: exit the process with code 1. */
  onSecondSignal?: (signal: NodeJS.Signals) => void;
}

/**
 * A signal that aborts on SIGTERM or SIGINT, for `mgr.start(signalHandler())`; a second signal exits at once
 * (controller-runtime's `SetupSignalHandler`).
 */
export function signalHandler(options: SignalHandlerOptions = {}): AbortSignal {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const second = options.onSecondSignal ?? (() => process.exit(1));
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (!ac.signal.aborted) {
      ac.abort(new Error(`received ${sig}`));
      return;
    }
    for (const s of signals) process.off(s, onSignal);
    second(sig);
  };
  for (const s of signals) process.on(s, onSignal);
  return ac.signal;
}
