/** Errors of the fake Gardener. */
import { AdminRequestError } from '../admin-client.js';

/** A request of the garden fixtures got an unexpected answer; see AdminRequestError. */
export class GardenRequestError extends AdminRequestError {}
