/**
 * The admissionregistration.k8s.io/v1 webhook fields a keeper writes into each member, minus clientConfig, which
 * the keeper fills in (the member's own URL and the current CA bundle).
 */
/** A metav1.LabelSelector. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

/**
 * Which operations on which resources a webhook is called for (admissionregistration.k8s.io's RuleWithOperations).
 */
export interface RuleWithOperations {
  operations: readonly ('CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*')[];
  apiGroups: readonly string[];
  apiVersions: readonly string[];
  resources: readonly string[];
  scope?: 'Cluster' | 'Namespaced' | '*';
}

/**
 * One webhook of a configuration: its path on the server, the rules it serves and its policies.
 */
export interface WebhookSpec {
  /** The webhook's name in the configuration: a fully qualified name such as "vwidget.example.com". */
  name: string;
  /** The server path it is registered on (the keeper prefixes `/clusters/<member>`). */
  path: string;
  rules: readonly RuleWithOperations[];
  /** What the API server does when it cannot reach the server. Default 'Fail'. */
  failurePolicy?: 'Fail' | 'Ignore';
  matchPolicy?: 'Exact' | 'Equivalent';
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  /** Default 'None' (the API server requires it). */
  sideEffects?: 'None' | 'NoneOnDryRun';
  timeoutSeconds?: number;
  /** Default ['v1']; the server speaks only v1. */
  admissionReviewVersions?: readonly string[];
  /** Mutating webhooks only. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  matchConditions?: { name: string; expression: string }[];
}

/**
 * A Validating or MutatingWebhookConfiguration to write into every member.
 */
export interface WebhookConfigurationSpec {
  /** metadata.name of the configuration in every member. */
  name: string;
  webhooks: readonly WebhookSpec[];
}
