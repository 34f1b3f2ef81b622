/**
 * Job rules on create: unless the Job says `manualSelector: true`, its selector is made from its uid and its pod
 * template gets the labels that selector and the Job's name need, so the pods of one Job match that Job only.
 */
import type { StoredObject } from '../../storage/types.js';
import { struct } from '../builtin-go-defaults.js';
import type { ResourceStrategy } from '../resource-type.js';
import { validateJob } from './workloads.js';

type Obj = Record<string, unknown>;

function generateSelector(job: StoredObject): void {
  const uid = String(job.metadata.uid);
  const name = String(job.metadata.name);
  const spec = struct(job, 'spec');
  // Changed in place: a Job whose labels were defaulted from its template shares that map, as in Go, and shows these too.
  const labels = struct(struct(struct(spec, 'template'), 'metadata'), 'labels');
  labels['job-name'] ??= name;
  labels['batch.kubernetes.io/job-name'] ??= name;
  labels['controller-uid'] = uid;
  labels['batch.kubernetes.io/controller-uid'] = uid;
  const matchLabels = struct(struct(spec, 'selector'), 'matchLabels');
  matchLabels['batch.kubernetes.io/controller-uid'] ??= uid;
}

/** Labels defaulted from the template share its map only while the request is read; stored, they are a copy again. */
function unshareLabels(job: StoredObject): void {
  const meta = job.metadata as Obj;
  const template = (job['spec'] as Obj | undefined)?.['template'] as Obj | undefined;
  const templateLabels = (template?.['metadata'] as Obj | undefined)?.['labels'];
  if (templateLabels !== undefined && meta['labels'] === templateLabels) meta['labels'] = { ...(templateLabels as Obj) };
}

export const jobStrategy: ResourceStrategy = {
  prepareForCreate(job) {
    const spec = struct(job, 'spec');
    spec['manualSelector'] ??= false;
    if (spec['manualSelector'] !== true) generateSelector(job);
    unshareLabels(job);
  },
  prepareForUpdate(job) {
    unshareLabels(job);
  },
  validate: validateJob,
};
