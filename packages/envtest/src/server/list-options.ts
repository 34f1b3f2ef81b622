/**
 * List and watch query options with apiserver's validation (internalversion/validation): selectors, resourceVersion
 * and resourceVersionMatch, limit/continue, and the watch-only options. Bad options are 400 or 422 before any
 * response starts.
 */
import { everythingSelector, LabelSelectorError, parseLabelSelector, type LabelSelector } from '@multicluster-runtime/apimachinery';
import { FieldSelector, SelectorParseError } from '../api/field-selector.js';
import type { FieldError } from '../api/field-error.js';
import { forbiddenField, notSupported } from '../api/field-error.js';
import { badRequest, invalid } from '../api/status-error.js';
import { queryBool, queryOptionalBool } from './query.js';

export interface ListOptions {
  readonly watch: boolean;
  readonly labelSelector: LabelSelector;
  readonly fieldSelector: FieldSelector;
  /** undefined when unset or "" */
  readonly resourceVersion: string | undefined;
  readonly resourceVersionMatch: '' | 'Exact' | 'NotOlderThan';
  readonly limit: number;
  readonly continueToken: string | undefined;
  readonly allowWatchBookmarks: boolean;
  readonly timeoutSeconds: number | undefined;
  readonly sendInitialEvents: boolean | undefined;
}

export function parseListOptions(params: URLSearchParams, watchForced: boolean): ListOptions {
  const watch = watchForced || queryBool(params, 'watch');
  let labelSelector: LabelSelector = everythingSelector;
  let fieldSelector = FieldSelector.everything;
  try {
    labelSelector = parseLabelSelector(params.get('labelSelector') ?? '');
    fieldSelector = FieldSelector.parse(params.get('fieldSelector') ?? '');
  } catch (err) {
    if (err instanceof LabelSelectorError) throw badRequest(`unable to parse requirement: ${err.reason}`);
    if (err instanceof SelectorParseError) throw badRequest(err.message);
    throw err;
  }
  const rv = params.get('resourceVersion') || undefined;
  if (rv !== undefined && !/^\d+$/.test(rv)) throw badRequest(`invalid resource version: ${JSON.stringify(rv)}`);
  const limitText = params.get('limit');
  let limit = 0;
  if (limitText !== null && limitText !== '') {
    if (!/^-?\d+$/.test(limitText)) throw badRequest(`limit: invalid value ${JSON.stringify(limitText)}: must be an integer`);
    limit = Math.max(0, Number(limitText));
  }
  const timeoutText = params.get('timeoutSeconds');
  let timeoutSeconds: number | undefined;
  if (timeoutText !== null && timeoutText !== '') {
    if (!/^\d+$/.test(timeoutText))
      throw badRequest(`timeoutSeconds: invalid value ${JSON.stringify(timeoutText)}: must be a non-negative integer`);
    timeoutSeconds = Number(timeoutText) || undefined;
  }
  const match = params.get('resourceVersionMatch') ?? '';
  const continueToken = params.get('continue') || undefined;
  const sendInitialEvents = queryOptionalBool(params, 'sendInitialEvents');

  const errs: FieldError[] = [];
  if (watch) {
    if (sendInitialEvents !== undefined && match !== 'NotOlderThan')
      errs.push(forbiddenField('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (match !== '') {
      if (sendInitialEvents === undefined)
        errs.push(
          forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'),
        );
      if (match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (continueToken) errs.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (sendInitialEvents !== undefined) errs.push(forbiddenField('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
    if (match !== '') {
      if (rv === undefined)
        errs.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (continueToken) errs.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (match === 'Exact' && rv === '0')
        errs.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
      if (match !== 'Exact' && match !== 'NotOlderThan')
        errs.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    }
  }
  if (errs.length > 0) throw invalid('meta.k8s.io', 'ListOptions', '', errs);
  return {
    watch,
    labelSelector,
    fieldSelector,
    resourceVersion: rv,
    resourceVersionMatch: match as ListOptions['resourceVersionMatch'],
    limit,
    continueToken,
    allowWatchBookmarks: queryBool(params, 'allowWatchBookmarks'),
    timeoutSeconds,
    sendInitialEvents,
  };
}

/** For a request on an item path, the name becomes a metadata.name field selector; a conflicting one is 400. */
export function withNameSelector(opts: ListOptions, name: string): ListOptions {
  const pinned = opts.fieldSelector.exactValue('metadata.name');
  if (pinned !== undefined && pinned !== name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
  return { ...opts, fieldSelector: opts.fieldSelector.with('metadata.name', name) };
}

export function matchesSelectors(opts: ListOptions, obj: { metadata: { name: string; namespace?: string; labels?: unknown } }): boolean {
  return opts.fieldSelector.matches(obj) && opts.labelSelector.matches(obj.metadata.labels as Record<string, string> | undefined);
}
