/**
 * Objects and configs that tests against API servers build over and over: the kubeconfig of a test server (an
 * envtest server, a real one, a kind cluster's) and ConfigMaps. Structural types keep this module free of any
 * dependency on the server that produced the kubeconfig.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject, ObjectKind } from '../object/types.js';

/** Anything that hands out a kubeconfig as YAML text, such as envtest's `ApiServer`. */
export interface KubeconfigSource {
  /** The kubeconfig YAML that reaches the server. */
  kubeconfig(): string;
}

/** A KubeConfig loaded from a server's kubeconfig (or from kubeconfig text). */
export function kubeconfigOf(source: KubeconfigSource | string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(typeof source === 'string' ? source : source.kubeconfig());
  return kc;
}

/** The kind of core/v1 ConfigMaps. */
export const configMapKind: ObjectKind = { apiVersion: 'v1', kind: 'ConfigMap' };

/** A ConfigMap to create (namespace `default` unless given). */
export function configMap(name: string, data: Record<string, string> = {}, namespace = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name }, data };
}
