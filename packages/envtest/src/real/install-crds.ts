/**
 * Installs CustomResourceDefinitions and waits until each is Established, each served version appears in discovery
 * (what controller-runtime's envtest waits for) and answers a list, so clients can use the resources at once.
 */
import { CrdInstallError } from './errors.js';
import { httpCall, type TlsClientCredentials } from './http-request.js';
import type { ManagedProcess } from './managed-process.js';
import { waitUntil } from './wait-until.js';

interface CrdShape {
  readonly name: string;
  readonly group: string;
  readonly plural: string;
  readonly servedVersions: readonly string[];
}

export interface InstallCrdsOptions {
  readonly url: string;
  readonly tls: TlsClientCredentials;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** The control plane: if one of them dies, waiting ends with its error instead of a timeout. */
  readonly processes?: readonly ManagedProcess[];
}

/** Checks that every CRD names its group, plural and served versions; throws CrdInstallError otherwise. */
export function checkCrds(crds: readonly object[]): void {
  crds.forEach((crd, index) => describeCrd(crd, index));
}

/** Creates every CRD, then waits for all of them; throws CrdInstallError naming the CRD at fault. */
export async function installCrds(crds: readonly object[], options: InstallCrdsOptions): Promise<void> {
  const shapes = crds.map((crd, index) => describeCrd(crd, index));
  for (const [index, crd] of crds.entries()) {
    const shape = shapes[index]!;
    const answer = await httpCall({
      method: 'POST',
      url: `${options.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`,
      body: crd,
      tls: options.tls,
      signal: options.signal,
      timeoutMs: 30_000,
    }).catch((err: unknown) => {
      if (options.signal?.aborted) throw options.signal.reason;
      throw new CrdInstallError(shape.name, `creating it failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    });
    if (answer.status !== 201) {
      throw new CrdInstallError(shape.name, `the API server rejected it (${answer.status}): ${statusMessage(answer.text)}`);
    }
  }
  for (const shape of shapes) {
    await waitUntil(
      async (signal) => {
        // Established, not only NamesAccepted: until then the first request to the resource stalls for seconds.
        const current = await httpCall({
          url: `${options.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(shape.name)}`,
          tls: options.tls,
          signal,
        });
        if (current.status !== 200) return `GET CRD: ${current.status}`;
        const conditions = (JSON.parse(current.text) as { status?: { conditions?: { type?: string; status?: string }[] } }).status
          ?.conditions;
        if (!conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True')) {
          return 'not Established yet';
        }
        for (const version of shape.servedVersions) {
          const answer = await httpCall({ url: `${options.url}/apis/${shape.group}/${version}`, tls: options.tls, signal });
          if (answer.status !== 200) return `GET /apis/${shape.group}/${version}: ${answer.status}`;
          const list = JSON.parse(answer.text) as { resources?: { name?: string }[] };
          if (!list.resources?.some((resource) => resource.name === shape.plural)) {
            return `${shape.plural} not yet in /apis/${shape.group}/${version}`;
          }
          // In discovery is not yet usable: until its storage is initialized the resource answers 429 ("storage is
          // (re)initializing"), which clients without a Retry-After loop (client-node) report as a failure.
          const objects = await httpCall({
            url: `${options.url}/apis/${shape.group}/${version}/${shape.plural}?limit=1`,
            tls: options.tls,
            signal,
          });
          if (objects.status !== 200) return `LIST ${shape.plural}.${shape.group}/${version}: ${objects.status}`;
        }
        return true;
      },
      { component: `CRD ${shape.name}`, timeoutMs: options.timeoutMs, signal: options.signal, processes: options.processes },
    );
  }
}

function describeCrd(crd: object, index: number): CrdShape {
  if (typeof crd !== 'object' || crd === null) throw new CrdInstallError(`#${index}`, 'is not an object');
  const value = crd as {
    metadata?: { name?: unknown };
    spec?: { group?: unknown; names?: { plural?: unknown }; versions?: unknown };
  };
  const name = typeof value.metadata?.name === 'string' ? value.metadata.name : `#${index}`;
  const group = value.spec?.group;
  const plural = value.spec?.names?.plural;
  const versions = value.spec?.versions;
  if (typeof group !== 'string' || !group) throw new CrdInstallError(name, 'spec.group is missing');
  if (typeof plural !== 'string' || !plural) throw new CrdInstallError(name, 'spec.names.plural is missing');
  if (!Array.isArray(versions) || versions.length === 0) throw new CrdInstallError(name, 'spec.versions is missing or empty');
  const servedVersions = versions
    .filter((version: { served?: unknown }) => version?.served === true)
    .map((version: { name?: unknown }) => version.name)
    .filter((version): version is string => typeof version === 'string');
  if (servedVersions.length === 0) throw new CrdInstallError(name, 'no version has served: true');
  return { name, group, plural, servedVersions };
}

function statusMessage(text: string): string {
  try {
    const status = JSON.parse(text) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // Not a Status object: show the raw text.
  }
  return text.slice(0, 500);
}
