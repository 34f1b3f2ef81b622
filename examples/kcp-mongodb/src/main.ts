/**
 * The controller as a program, like the seed's `mongodb-controller`:
 *   node dist/main.js --kcp-kubeconfig=kcp.kubeconfig --target-kubeconfig=downstream.kubeconfig
 * The kcp kubeconfig points at the workspace holding the APIExport (e.g. `…/clusters/root:mongodb`).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger, newManager, signalHandler } from '@multicluster-runtime/core';
import { ApiExportProvider } from '@multicluster-runtime/provider-kcp-apiexport';
import { parseArgs } from 'node:util';
import { EXPORT_NAME } from './api.js';
import { setupMongoSync } from './mongodb-sync.js';

const { values } = parseArgs({
  options: {
    'kcp-kubeconfig': { type: 'string' },
    'target-kubeconfig': { type: 'string' },
    'endpoint-slice': { type: 'string', default: EXPORT_NAME },
    'downstream-namespace': { type: 'string', default: 'default' },
  },
});
if (!values['kcp-kubeconfig'] || !values['target-kubeconfig']) {
  console.error(
    'usage: main --kcp-kubeconfig=<path> --target-kubeconfig=<path> [--endpoint-slice=mongodb] [--downstream-namespace=default]',
  );
  process.exit(2);
}

const load = (path: string): KubeConfig => {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
};
const logger = createLogger();
const provider = new ApiExportProvider({
  endpointSliceName: values['endpoint-slice'],
  exportConfig: load(values['kcp-kubeconfig']),
});
// The provider logs through the manager's logger.
const mgr = newManager(load(values['target-kubeconfig']), provider, { logger });
setupMongoSync(mgr, { downstreamNamespace: values['downstream-namespace'] });
await mgr.start(signalHandler());
