/**
 * The admission.k8s.io/v1 wire types: what an API server posts to a webhook (AdmissionReview with a request) and
 * what the webhook answers (the same envelope with a response). Plain JSON shapes, as the API server sends them.
 */
import type { GroupVersionKind, KubeObject } from '@multicluster-runtime/core';

/**
 * The AdmissionReview API version the server speaks.
 */
export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';
/**
 * The kind of an admission request and response.
 */
export const ADMISSION_REVIEW_KIND = 'AdmissionReview';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** authentication.k8s.io/v1 UserInfo: who made the request the API server is admitting. */
export interface AdmissionUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo: AdmissionUserInfo;
  /** The object as written (CREATE, UPDATE); absent for DELETE. */
  object?: KubeObject | null;
  /** The stored object (UPDATE, DELETE). */
  oldObject?: KubeObject | null;
  dryRun?: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions of the request. */
  options?: Record<string, unknown> | null;
}

/** A metav1.Status carried in a response: why a request was denied. */
export interface AdmissionStatus {
  status?: 'Success' | 'Failure';
  code?: number;
  reason?: string;
  message?: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  /** Base64 of an RFC 6902 JSON patch. */
  patch?: string;
  patchType?: 'JSONPatch';
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: typeof ADMISSION_REVIEW_KIND;
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}
