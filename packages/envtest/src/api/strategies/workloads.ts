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
      errs.push(...containerPortErrors(container['ports'], `${at}.ports`), ...envErrors(container['env'], `${at}.env`));
    });
  }
  return errs;
}

/** validation.IsValidPortName: an IANA service name, as ports are named and targeted by name. */
export function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

export const PORT_RANGE_MESSAGE = 'must be between 1 and 65535, inclusive';

export function validPort(port: unknown): boolean {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535;
}

/** A container's ports: a containerPort in range, names that are IANA service names and unique. */
function containerPortErrors(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(ports)) return errs;
  const names = new Set<string>();
  ports.forEach((p: unknown, i) => {
    const port = isPlainObject(p) ? p : {};
    const at = `${path}[${i}]`;
    const name = port['name'];
    if (typeof name === 'string' && name !== '') {
      for (const message of portNameErrors(name)) errs.push(invalidValue(`${at}.name`, name, message));
      if (names.has(name)) errs.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
    const containerPort = port['containerPort'];
    if (containerPort === undefined || containerPort === 0) errs.push(required(`${at}.containerPort`));
    else if (!validPort(containerPort)) errs.push(invalidValue(`${at}.containerPort`, containerPort, PORT_RANGE_MESSAGE));
    const hostPort = port['hostPort'];
    if (hostPort !== undefined && hostPort !== 0 && !validPort(hostPort))
      errs.push(invalidValue(`${at}.hostPort`, hostPort, PORT_RANGE_MESSAGE));
  });
  return errs;
}

/** Environment variables: a name each, and a value or a source, not both. */
function envErrors(env: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(env)) return errs;
  env.forEach((e: unknown, i) => {
    const variable = isPlainObject(e) ? e : {};
    if (typeof variable['name'] !== 'string' || variable['name'] === '') errs.push(required(`${path}[${i}].name`));
    if (isPlainObject(variable['valueFrom']) && typeof variable['value'] === 'string' && variable['value'] !== '') {
      errs.push(invalidValue(`${path}[${i}].valueFrom`, '', 'may not be specified when `value` is not empty'));
    }
  });
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
