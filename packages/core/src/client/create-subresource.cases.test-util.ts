/**
 * `createSubresource` over HTTP, run on the in-memory server (create-subresource.integration.test.ts) and a real
 * kube-apiserver (toolkit.real.test.ts): a TokenRequest for a ServiceAccount answers with a token the server then
 * accepts as that ServiceAccount, the server's validation comes back as a typed error, and a bad subresource name
 * is refused before anything is sent.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { isForbidden, isInvalid, isNotFound } from './errors.js';
import { newCluster } from '../cluster/cluster.js';
import type { Tier } from '../cluster/tier.test-util.js';

const serviceAccounts = { apiVersion: 'v1', kind: 'ServiceAccount' };

interface TokenRequest {
  apiVersion: string;
  kind: string;
  spec: { expirationSeconds: number };
  status: { token: string; expirationTimestamp: string };
}

export function createSubresourceCases(tier: () => Tier): void {
  it('a ServiceAccount token request answers with a token the server accepts as that ServiceAccount', async () => {
    const { direct: client, namespace, kubeconfig } = tier();
    const ns = await namespace();
    await client.create({ ...serviceAccounts, metadata: { namespace: ns, name: 'robot' } });
    const answer = await client.createSubresource<TokenRequest>(serviceAccounts, { namespace: ns, name: 'robot' }, 'token', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 600 },
    });
    expect(answer).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } });
    expect(Date.parse(answer.status.expirationTimestamp) - Date.now()).toBeGreaterThan(590_000);

    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    const user = kc.getCurrentUser()!;
    kc.users = kc.users.map((u) => (u.name === user.name ? { name: u.name, token: answer.status.token } : u));
    const robot = newCluster(kc, { name: 'robot' });
    try {
      // Authenticated as the ServiceAccount: allowed where nothing authorizes (memory), refused by name under RBAC (real).
      const read = await robot.apiReader.get(serviceAccounts, { namespace: ns, name: 'robot' }).catch((e: unknown) => e);
      if (tier().name === 'real') {
        expect(isForbidden(read)).toBe(true);
        expect((read as Error).message).toContain(`system:serviceaccount:${ns}:robot`);
      } else {
        expect((read as { metadata: { name: string } }).metadata.name).toBe('robot');
      }
    } finally {
      await robot.start(AbortSignal.abort());
    }
  });

  it("the server's refusals are typed errors; a bad subresource name or body is refused before sending", async () => {
    const { direct: client, namespace } = tier();
    const ns = await namespace();
    await client.create({ ...serviceAccounts, metadata: { namespace: ns, name: 'robot' } });
    const key = { namespace: ns, name: 'robot' };
    await expect(client.createSubresource(serviceAccounts, key, 'token', { spec: { expirationSeconds: 60 } })).rejects.toSatisfy(isInvalid);
    await expect(client.createSubresource(serviceAccounts, { namespace: ns, name: 'nobody' }, 'token', { spec: {} })).rejects.toSatisfy(
      isNotFound,
    );
    await expect(client.createSubresource(serviceAccounts, key, '../secrets', {})).rejects.toThrow(/invalid subresource name/);
    await expect(client.createSubresource(serviceAccounts, key, 'token', [] as never)).rejects.toThrow(/must be an object/);
  });
}
