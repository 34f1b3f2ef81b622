/**
 * Turning a defaulter, a validator or a raw function into a registrable webhook. The defaulter works on a copy of
 * the request's object and the patch is computed from the difference (controller-runtime's defaulter); the
 * validator is dispatched on the operation (controller-runtime's validator). Neither sees DELETE's missing object.
 */
import type { KubeObject } from '@multicluster-runtime/core';
import { WebhookOptionsError } from '../errors.js';
import { jsonPatchBetween } from './json-patch.js';
import type {
  AdmissionContext,
  AdmissionHandler,
  AdmissionResult,
  AdmissionWebhook,
  Defaulter,
  ValidationResult,
  Validator,
  WebhookOptions,
} from './types.js';

function checkOptions(options: WebhookOptions): Readonly<WebhookOptions> {
  if (options.failurePolicy !== undefined && options.failurePolicy !== 'Fail' && options.failurePolicy !== 'Ignore')
    throw new WebhookOptionsError(`failurePolicy must be "Fail" or "Ignore", got ${JSON.stringify(options.failurePolicy)}`);
  if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0))
    throw new WebhookOptionsError(`timeoutMs must be a positive number, got ${String(options.timeoutMs)}`);
  if (options.name !== undefined && (typeof options.name !== 'string' || options.name === ''))
    throw new WebhookOptionsError('name must be a non-empty string');
  return Object.freeze({ ...options });
}

/** A validation result (or nothing, meaning allowed) as an admission result. */
export function fromValidation(result: void | ValidationResult): AdmissionResult {
  if (result === undefined || result === null) return { allowed: true };
  if (typeof result !== 'object' || typeof result.allowed !== 'boolean')
    throw new TypeError('a validator must return nothing, allowed(...) or denied(...)');
  const out: AdmissionResult = { allowed: result.allowed };
  if (result.warnings?.length) out.warnings = [...result.warnings];
  if (!result.allowed) {
    out.message = result.reason ?? '';
    out.code = result.code ?? 403;
  }
  return out;
}

function requestObject(ctx: AdmissionContext, field: 'object' | 'oldObject'): KubeObject {
  const obj = ctx.request[field];
  if (!obj || typeof obj !== 'object') throw new TypeError(`the ${ctx.request.operation} request carries no ${field}`);
  return structuredClone(obj);
}

/** A mutating webhook that runs `defaulter.default` on a copy of the object and answers with the JSON patch. */
export function withDefaulter<T extends KubeObject = KubeObject>(defaulter: Defaulter<T>, options: WebhookOptions = {}): AdmissionWebhook {
  if (typeof defaulter?.default !== 'function')
    throw new WebhookOptionsError('withDefaulter needs an object with a default(ctx, obj) method');
  return {
    type: 'mutating',
    options: checkOptions(options),
    handle: async (ctx) => {
      if (ctx.request.operation === 'DELETE' || ctx.request.operation === 'CONNECT') return { allowed: true };
      const original = requestObject(ctx, 'object');
      const obj = structuredClone(original) as T;
      const verdict = fromValidation(await defaulter.default(ctx, obj));
      if (!verdict.allowed) return verdict;
      const patch = jsonPatchBetween(original, obj);
      return patch.length > 0 ? { ...verdict, patch } : verdict;
    },
  };
}

/** A validating webhook dispatching CREATE, UPDATE and DELETE to the validator's methods. */
export function withValidator<T extends KubeObject = KubeObject>(validator: Validator<T>, options: WebhookOptions = {}): AdmissionWebhook {
  if (!validator || typeof validator !== 'object') throw new WebhookOptionsError('withValidator needs a validator object');
  return {
    type: 'validating',
    options: checkOptions(options),
    handle: async (ctx) => {
      switch (ctx.request.operation) {
        case 'CREATE':
          return fromValidation(await validator.validateCreate?.(ctx, requestObject(ctx, 'object') as T));
        case 'UPDATE':
          return fromValidation(
            await validator.validateUpdate?.(ctx, requestObject(ctx, 'oldObject') as T, requestObject(ctx, 'object') as T),
          );
        case 'DELETE':
          return fromValidation(await validator.validateDelete?.(ctx, requestObject(ctx, 'oldObject') as T));
        case 'CONNECT':
          return { allowed: true };
      }
    },
  };
}

/** A webhook around a raw handler (mutating when it returns a patch). */
export function withHandler(handler: AdmissionHandler, options: WebhookOptions = {}): AdmissionWebhook {
  if (typeof handler !== 'function') throw new WebhookOptionsError('withHandler needs a function');
  return { type: 'raw', options: checkOptions(options), handle: handler };
}
