/**
 * @multicluster-runtime/webhook: cluster-aware admission webhooks. One HTTPS server answers AdmissionReview v1 for a
 * whole fleet; each review is resolved to the member it came from before a defaulter, validator or raw handler runs;
 * a keeper writes the webhook configurations into every member.
 */
export type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionStatus,
  AdmissionUserInfo,
  GroupVersionResource,
  Operation,
} from './admission/types.js';
export { ADMISSION_API_VERSION, ADMISSION_REVIEW_KIND } from './admission/types.js';

export type {
  AdmissionContext,
  AdmissionHandler,
  AdmissionResult,
  AdmissionWebhook,
  Defaulter,
  FailurePolicy,
  JsonPatchOperation,
  ValidationResult,
  Validator,
  WebhookOptions,
} from './handlers/types.js';
export { allowed, denied } from './handlers/result.js';
export { withDefaulter, withHandler, withValidator } from './handlers/webhooks.js';

export type { ClusterSource } from './cluster/resolve.js';
export {
  CLUSTER_PATH_PREFIX,
  KCP_CLUSTER_ANNOTATION,
  MILO_PARENT_API_GROUP_EXTRA,
  MILO_PARENT_NAME_EXTRA,
  MILO_PARENT_TYPE_EXTRA,
  clusterPath,
  clusterSegment,
} from './cluster/resolve.js';

export type { WebhookServerOptions } from './server/options.js';
export type { ClusterLookup } from './server/webhook-server.js';
export { WebhookServer } from './server/webhook-server.js';

export type { RegistryLike } from './metrics/webhook-metrics.js';
export type { HandlerFailure, RejectReason, ReviewResult, WebhookMetrics } from './metrics/webhook-metrics.js';

export type { KeeperManager, KeeperOptions } from './configuration/keeper.js';
export { WebhookConfigurationKeeper } from './configuration/keeper.js';
export type { LabelSelectorObject, RuleWithOperations, WebhookConfigurationSpec, WebhookSpec } from './configuration/types.js';

export { BadReviewError, CertificateError, WebhookConfigurationError, WebhookError, WebhookOptionsError } from './errors.js';
