/** Errors of the fake Milo. */
import { AdminRequestError } from '../admin-client.js';

/** A request of the Milo fixtures got an unexpected answer; see AdminRequestError. */
export class MiloRequestError extends AdminRequestError {}
