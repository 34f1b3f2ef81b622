/** Errors of the health and metrics endpoints. None is worth retrying as is: each names a configuration mistake. */

/** Base class: something about the probe/metrics endpoints is misconfigured or could not start. */
export class ProbeServerError extends Error {
  override readonly name: string = 'ProbeServerError';
}

/** A bind address is not `host:port`, `:port`, or "0"/"" (off). */
export class BindAddressInvalidError extends ProbeServerError {
  override readonly name = 'BindAddressInvalidError';
  constructor(
    readonly address: string,
    reason: string,
  ) {
    super(`invalid bind address ${JSON.stringify(address)}: ${reason}`);
  }
}

/** The server could not listen (address in use, permission denied, unknown host). */
export class ListenFailedError extends ProbeServerError {
  override readonly name = 'ListenFailedError';
  constructor(
    readonly address: string,
    options: { cause: unknown },
  ) {
    const why = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(`cannot listen on ${address}: ${why}`, options);
  }
}

/** A health check name is empty, has characters a URL path segment cannot carry, or is taken. */
export class HealthCheckNameError extends ProbeServerError {
  override readonly name = 'HealthCheckNameError';
  constructor(
    readonly checkName: string,
    reason: string,
  ) {
    super(`health check ${JSON.stringify(checkName)}: ${reason}`);
  }
}
