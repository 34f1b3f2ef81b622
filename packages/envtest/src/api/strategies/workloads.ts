/**
 * What the real server's validation refuses in the objects controllers generate most: a pod spec without containers,
 * images or proper container names; a workload whose selector is missing, empty or does not match its template's
 * labels, that asks for fewer than zero replicas or a restart policy its controller cannot honour; a workload whose
 * selector changes. A controller that gets one of these wrong is refused on a real cluster, so it is refused here,
 * with the same 422 and the same words, in the same order.
 */
import { dns1123LabelErrors, labelSelectorFromObject } from '@multicluster-runtime/apimachinery';
import { isDeepStrictEqual } from 'node:util';
import type { StoredObject } from '../../storage/types.js';
import { duplicate, invalidValue, notSupported, required, type FieldError } from '../field-error.js';
import { isPlainObject } from '../patch/merge-patch.js';
import type { ResourceStrategy } from '../resource-type.js';

type Obj = Record<string, unknown>;

function objAt(obj: unknown, ...keys: string[]): Obj | undefined {
  let at: unknown = obj;
  for (const key of keys) at = isPlainObject(at) ? at[key] : undefined;
  return isPlainObject(at) ? at : undefined;
}

/** Containers, init containers: names present, DNS labels and unique across both; images present. */
export function validatePodSpec(spec: Obj | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  const containers = spec?.['containers'];
  if (!Array.isArray(containers) || containers.length === 0) errs.push(required(`${path}.containers`));
  for (const key of ['containers', 'initContainers']) {
    const list = spec?.[key];
    if (!Array.isArray(list)) continue;
    list.forEach((c: unknown, i) => {
      const at = `${path}.${key}[${i}]`;
      const container = isPlainObject(c) ? c : {};
      const name = container['name'];
      if (typeof name !== 'string' || name === '') errs.push(required(`${at}.name`));
      else {
        for (const message of dns1123LabelErrors(name)) errs.push(invalidValue(`${at}.name`, name, message));
        if (names.has(name)) errs.push(duplicate(`${at}.name`, name));
        names.add(name);
      }
      if (typeof container['image'] !== 'string' || container['image'] === '') errs.push(required(`${at}.image`));
    });
  }
  return errs;
}

interface WorkloadRules {
  /** How the empty-selector message names the kind (ReplicaSets say "deployment", as the real server does). */
  readonly noun: string;
  /** DaemonSets may leave the selector out (it then matches nothing, which the template check reports). */
  readonly selectorRequired: boolean;
}

/** The template's labels must be selected by the workload's selector (a missing one selects nothing). */
function selectorErrors(spec: Obj, rules: WorkloadRules): FieldError[] {
  const errs: FieldError[] = [];
  const selector = spec['selector'];
  const labels = objAt(spec, 'template', 'metadata')?.['labels'];
  if (isPlainObject(selector) && Object.keys(selector).every((k) => !hasEntries(selector[k]))) {
    errs.push(invalidValue('spec.selector', selector, `empty selector is invalid for ${rules.noun}`));
    return errs;
  }
  if (!isPlainObject(selector) && rules.selectorRequired) errs.push(required('spec.selector'));
  if (!matches(selector, labels))
    errs.push(invalidValue('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  return errs;
}

function hasEntries(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : isPlainObject(value) && Object.keys(value).length > 0;
}

function matches(selector: unknown, labels: unknown): boolean {
  if (!isPlainObject(selector)) return false;
  try {
    return labelSelectorFromObject(selector).matches(isPlainObject(labels) ? (labels as Record<string, string>) : {});
  } catch {
    // A selector that does not parse matches nothing; its own error is the decoder's or validation's.
    return false;
  }
}

function workloadStrategy(rules: WorkloadRules): ResourceStrategy {
  return {
    validate(obj: StoredObject, old: StoredObject | undefined): FieldError[] {
      const spec = objAt(obj, 'spec') ?? {};
      const errs: FieldError[] = [];
      const replicas = spec['replicas'];
      if (typeof replicas === 'number' && replicas < 0)
        errs.push(invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0'));
      errs.push(...selectorErrors(spec, rules));
      const podSpec = objAt(spec, 'template', 'spec');
      errs.push(...validatePodSpec(podSpec, 'spec.template.spec'));
      const restartPolicy = podSpec?.['restartPolicy'];
      if (restartPolicy !== undefined && restartPolicy !== 'Always')
        errs.push(notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
      const before = old ? objAt(old, 'spec')?.['selector'] : undefined;
      if (old && !isDeepStrictEqual(spec['selector'], before))
        errs.push(invalidValue('spec.selector', spec['selector'], 'field is immutable'));
      return errs;
    },
  };
}

export const deploymentStrategy = workloadStrategy({ noun: 'deployment', selectorRequired: true });
export const replicaSetStrategy = workloadStrategy({ noun: 'deployment', selectorRequired: true });
export const statefulSetStrategy = workloadStrategy({ noun: 'statefulset', selectorRequired: true });
export const daemonSetStrategy = workloadStrategy({ noun: 'daemonset', selectorRequired: false });

/** A Job's pods must not restart in place (OnFailure or Never), and a manual selector must select its template. */
export function validateJob(job: StoredObject): FieldError[] {
  const spec = objAt(job, 'spec') ?? {};
  const errs: FieldError[] = [];
  if (spec['manualSelector'] === true) {
    const labels = objAt(spec, 'template', 'metadata')?.['labels'];
    if (!matches(spec['selector'], labels)) {
      errs.push(invalidValue('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
    }
  }
  const podSpec = objAt(spec, 'template', 'spec');
  errs.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  const restartPolicy = podSpec?.['restartPolicy'];
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    errs.push(required('spec.template.spec.restartPolicy', 'valid values: "OnFailure", "Never"'));
  }
  return errs;
}
