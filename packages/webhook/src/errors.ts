/**
 * The webhook package's errors, one family: options that cannot work, AdmissionReviews that cannot be read,
 * certificates that cannot be loaded, and webhook configurations that cannot be written to a member.
 */

/** Base class of every error this package throws. */
export class WebhookError extends Error {
  override name = 'WebhookError';
}

/** Options that cannot work (a missing certificate path, a bad port, a path that clashes). */
export class WebhookOptionsError extends WebhookError {
  override name = 'WebhookOptionsError';
}

/** A request body that is not a usable AdmissionReview v1; `httpStatus` is what the server answers. */
export class BadReviewError extends WebhookError {
  override name = 'BadReviewError';
  constructor(
    message: string,
    readonly httpStatus = 400,
  ) {
    super(message);
  }
}

/** The serving certificate or key cannot be read or does not form a usable TLS identity. */
export class CertificateError extends WebhookError {
  override name = 'CertificateError';
}

/** A Validating/MutatingWebhookConfiguration could not be written to or removed from a member. */
export class WebhookConfigurationError extends WebhookError {
  override name = 'WebhookConfigurationError';
}
