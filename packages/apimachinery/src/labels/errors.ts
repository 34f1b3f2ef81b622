/**
 * Errors from parsing label selectors. A selector that fails to parse is a programming or configuration error:
 * retrying the same text cannot help.
 */

/** A label selector (string, map or metav1.LabelSelector) that does not follow the Kubernetes grammar. */
export class LabelSelectorError extends Error {
  override readonly name = 'LabelSelectorError';
  /** Always false: the same selector fails the same way. */
  readonly retryable = false;
  constructor(
    /** The selector as given, for the message (label selectors carry no secrets). */
    readonly selector: string,
    /** What is wrong, e.g. `found '(', expected: identifier`. */
    readonly reason: string,
    /** Offset into `selector` where parsing stopped, when the input was a string. */
    readonly position?: number,
  ) {
    super(`invalid label selector ${JSON.stringify(selector)}: ${reason}${position === undefined ? '' : ` (at offset ${position})`}`);
  }
}
