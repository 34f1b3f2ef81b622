/**
 * Status conditions (`metav1.Condition`) with Kubernetes' semantics: one condition per type, `lastTransitionTime`
 * moves only when `status` changes, and `observedGeneration` records which spec the condition describes. The helpers
 * edit the array they are given in place and report whether anything changed, so a reconciler writes status only
 * when it must:
 *
 *   if (setStatusCondition((obj.status.conditions ??= []), { type: 'Ready', status: 'True', reason: 'Synced' })) …
 *
 * They take any condition array of that shape (kubernetes-types' `Condition`, generated CRD types), typed or not.
 */

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A condition as stored in an object's `status.conditions`. Times are RFC 3339 strings with second precision. */
export interface Condition {
  /** CamelCase, e.g. `Ready`; unique within the array. */
  type: string;
  status: ConditionStatus;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
  lastTransitionTime: string;
  /** CamelCase machine-readable reason, e.g. `DownstreamCreated`. Required by the API. */
  reason: string;
  message: string;
}

/** The shape the helpers accept in an array: `status` as any string (kubernetes-types types it `string`). */
export interface ConditionLike {
  type: string;
  status: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The condition to set: `lastTransitionTime` defaults to now when the status changes, `message` to "". */
export interface NewCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** Now as `metav1.Time` serializes it: RFC 3339 in UTC, whole seconds. */
export function conditionTime(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * Sets `condition` in `conditions`: adds it if its type is absent, else updates the existing one. Its
 * `lastTransitionTime` changes only when `status` changes (to `condition.lastTransitionTime` if given, else now).
 * Returns true if anything changed.
 */
export function setStatusCondition<C extends ConditionLike>(conditions: C[], condition: NewCondition): boolean {
  if (!Array.isArray(conditions)) {
    throw new TypeError('setStatusCondition needs the conditions array; write setStatusCondition((status.conditions ??= []), …)');
  }
  if (typeof condition?.type !== 'string' || condition.type === '') throw new TypeError('a condition needs a type');
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) {
    const added: Condition = {
      type: condition.type,
      status: condition.status,
      ...(condition.observedGeneration !== undefined ? { observedGeneration: condition.observedGeneration } : {}),
      lastTransitionTime: condition.lastTransitionTime ?? conditionTime(),
      reason: condition.reason,
      message: condition.message ?? '',
    };
    conditions.push(added as unknown as C);
    return true;
  }
  let changed = false;
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = condition.lastTransitionTime ?? conditionTime();
    changed = true;
  }
  if (existing.reason !== condition.reason) {
    existing.reason = condition.reason;
    changed = true;
  }
  const message = condition.message ?? '';
  if ((existing.message ?? '') !== message) {
    existing.message = message;
    changed = true;
  }
  if (existing.observedGeneration !== condition.observedGeneration) {
    if (condition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = condition.observedGeneration;
    changed = true;
  }
  return changed;
}

/** Removes the condition of `type`. Returns true if there was one. */
export function removeStatusCondition<C extends ConditionLike>(conditions: C[] | undefined, type: string): boolean {
  if (!conditions) return false;
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}

/** The condition of `type`, or undefined. */
export function findStatusCondition<C extends ConditionLike>(conditions: readonly C[] | undefined, type: string): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/** True if the condition of `type` is present with `status`. */
export function isStatusConditionPresentAndEqual(
  conditions: readonly ConditionLike[] | undefined,
  type: string,
  status: ConditionStatus,
): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}

/** True if the condition of `type` is present and `True`. */
export function isStatusConditionTrue(conditions: readonly ConditionLike[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'True');
}

/** True if the condition of `type` is present and `False` (absent is neither true nor false). */
export function isStatusConditionFalse(conditions: readonly ConditionLike[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'False');
}
