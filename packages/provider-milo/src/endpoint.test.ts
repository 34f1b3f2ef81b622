import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, test } from 'vitest';
import { connectionFingerprint } from '@multicluster-runtime/core/kubeconfig';
import { checkedUrl, internalAddressProblem, internalControlPlaneUrl, projectControlPlaneUrl, projectKubeConfig } from './endpoint.js';

describe('projectControlPlaneUrl', () => {
  test('appends the project path to a bare base URL', () => {
    expect(projectControlPlaneUrl('https://milo.example:6443', 'p1')).toBe(
      'https://milo.example:6443/apis/resourcemanager.miloapis.com/v1alpha1/projects/p1/control-plane',
    );
  });

  test('keeps a path already on the base URL (upstream drops it)', () => {
    expect(projectControlPlaneUrl('https://gw.example/milo/', 'p1')).toBe(
      'https://gw.example/milo/apis/resourcemanager.miloapis.com/v1alpha1/projects/p1/control-plane',
    );
  });
});

describe('internal addresses', () => {
  test('a template needs {name} and must be a plain http(s) URL', () => {
    expect(internalAddressProblem('https://milo-apiserver.project-{name}.svc:6443')).toBeUndefined();
    expect(internalAddressProblem('https://milo-apiserver.svc:6443')).toMatch(/\{name\}/);
    expect(internalAddressProblem('ftp://{name}.example')).toMatch(/https/);
    expect(internalAddressProblem('https://user:pw@{name}.example')).toMatch(/credentials/);
    expect(internalAddressProblem('https://{name}.example/?x=1')).toMatch(/query/);
  });

  test('fills in the name and drops a trailing slash', () => {
    expect(internalControlPlaneUrl('https://milo-apiserver.project-{name}.svc.cluster.local:6443/', 'p1')).toBe(
      'https://milo-apiserver.project-p1.svc.cluster.local:6443',
    );
  });

  test('checkedUrl refuses what a user-supplied address function returns wrongly', () => {
    expect(() => checkedUrl(undefined)).toThrow(/not a string/);
    expect(() => checkedUrl('not a url')).toThrow(/not a URL/);
  });
});

describe('projectKubeConfig', () => {
  const base = new KubeConfig();
  base.loadFromOptions({
    clusters: [{ name: 'milo', server: 'https://milo.example:6443/gw', caData: 'Q0E=', skipTLSVerify: false, tlsServerName: 'milo' }],
    users: [{ name: 'op', token: 'secret-token' }],
    contexts: [{ name: 'milo', cluster: 'milo', user: 'op' }],
    currentContext: 'milo',
  });

  test('keeps the credentials and TLS settings of the base and replaces only the server', () => {
    const kc = projectKubeConfig(base, 'p1', 'https://milo.example:6443/gw/apis/x/projects/p1/control-plane/');
    expect(kc.getCurrentCluster()).toMatchObject({
      server: 'https://milo.example:6443/gw/apis/x/projects/p1/control-plane',
      caData: 'Q0E=',
      tlsServerName: 'milo',
    });
    expect(kc.getCurrentUser()).toBe(base.getCurrentUser());
  });

  test('projects on different servers have different fingerprints, the same project the same one', () => {
    const a = connectionFingerprint(projectKubeConfig(base, 'a', 'https://x/a'));
    expect(connectionFingerprint(projectKubeConfig(base, 'a', 'https://x/a'))).toBe(a);
    expect(connectionFingerprint(projectKubeConfig(base, 'b', 'https://x/b'))).not.toBe(a);
  });
});
