/**
 * When a shoot is engaged (garden topology): Gardener has reconciled it (a last operation exists and is not a
 * creation still under way), it is not hibernated (its API server is scaled down) and not being deleted.
 */
import type { KubeObject } from '@multicluster-runtime/core';

/** A shoot as far as readiness reads it. */
export interface ShootObject extends KubeObject {
  spec?: { hibernation?: { enabled?: boolean } };
  status?: {
    isHibernated?: boolean;
    lastOperation?: { type?: string; state?: string };
    advertisedAddresses?: unknown;
    credentials?: unknown;
  };
}

/** Whether a shoot is engaged, and if not, why. */
export type ShootReadiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

/** Decides whether a shoot is engaged. Replace it with `options.isReady`. */
export type ShootReadinessCheck = (shoot: ShootObject) => boolean;

/** The default readiness: reconciled, awake and not being deleted. */
export function shootReadiness(shoot: ShootObject): ShootReadiness {
  if (shoot.spec?.hibernation?.enabled === true || shoot.status?.isHibernated === true) {
    return { ready: false, reason: 'the shoot is hibernated' };
  }
  const op = shoot.status?.lastOperation;
  if (!op?.type) return { ready: false, reason: 'Gardener has not reconciled the shoot yet (no status.lastOperation)' };
  if (op.type === 'Create' && op.state !== 'Succeeded') {
    return { ready: false, reason: `the shoot is being created (last operation Create ${String(op.state)})` };
  }
  if (op.type === 'Delete') return { ready: false, reason: 'the shoot is being deleted' };
  return { ready: true };
}
