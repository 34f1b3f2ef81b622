/**
 * Last-resort cleanup when the Node process exits while environments are still running (a test run that crashed,
 * a forgotten stop()). Only synchronous work is possible in an 'exit' handler, so callers register synchronous
 * actions: SIGKILL a child, remove a folder. Normal stop() unregisters its actions first.
 */
const actions = new Set<() => void>();
let installed = false;

function runAll(): void {
  // Newest first, like deferred calls: processes die before the folders they write to are removed.
  for (const action of [...actions].reverse()) {
    try {
      action();
    } catch {
      // Exiting anyway: one failed cleanup must not stop the others.
    }
  }
  actions.clear();
}

/** Registers a synchronous action to run if the process exits first; returns the function that unregisters it. */
export function onProcessExit(action: () => void): () => void {
  if (!installed) {
    installed = true;
    process.once('exit', runAll);
  }
  actions.add(action);
  return () => {
    actions.delete(action);
  };
}
