/**
 * Test fixtures for a fake Milo: install the Milo CRDs on a server, create Projects and ProjectControlPlanes (with
 * the labels and annotation Milo's project controller writes), and flip their readiness conditions the way Milo
 * reports it (`Ready` on a Project, `ControlPlaneReady` on a ProjectControlPlane).
 */
import type { ApiServer } from '../api-server.js';
import { AdminClient } from '../admin-client.js';
import { MiloRequestError } from './errors.js';
import { MILO_INFRA_GROUP, MILO_PROJECT_GROUP, MILO_VERSION, projectControlPlaneCrd, projectCrd } from './crds.js';

/** How createProject makes a project: its labels, whether it is ready, and its organization. */
export interface ProjectFixtureOptions {
  labels?: Record<string, string>;
  /** Mark it ready right after creating it. Default false: the CRD default, waiting for its control plane. */
  ready?: boolean;
  /** The owning organization (label and spec.ownerRef). Default `test-org`. */
  organization?: string;
}

/** A status condition as Milo writes it (metav1.Condition without its times). */
export interface ReadinessCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

type StatusHolder = { status?: { conditions?: ReadinessCondition[] } };

const projectsPath = `/apis/${MILO_PROJECT_GROUP}/${MILO_VERSION}/projects`;
const controlPlanesPath = `/apis/${MILO_INFRA_GROUP}/${MILO_VERSION}/projectcontrolplanes`;

/** Creates, readies and deletes Milo Projects and their ProjectControlPlanes on a fake Milo, as tests need them. */
export class MiloFixtures {
  private readonly admin: AdminClient;

  /** `server`: the in-memory server (startMiloServer) or any other, such as a real one from `/real`'s startTestEnvironment. */
  constructor(server: Pick<ApiServer, 'url' | 'kubeconfig'>) {
    this.admin = new AdminClient(server.url, server.kubeconfig(), MiloRequestError);
  }

  /** Creates both CRDs (an existing one is kept) and resolves once both resources are served. */
  async installCrds(signal?: AbortSignal): Promise<void> {
    for (const crd of [projectCrd, projectControlPlaneCrd]) {
      try {
        await this.admin.send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      } catch (err) {
        if (!(err instanceof MiloRequestError && err.status === 409)) throw err;
      }
    }
    for (const path of [projectsPath, controlPlanesPath]) {
      for (;;) {
        signal?.throwIfAborted();
        try {
          await this.admin.send('GET', `${path}?limit=1`);
          break;
        } catch (err) {
          if (!(err instanceof MiloRequestError && err.status === 404)) throw err;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }
  }

  /** Creates a Project in an organization, its `Ready` condition True when `options.ready`, else Unknown. */
  async createProject(name: string, options: ProjectFixtureOptions = {}): Promise<void> {
    const org = options.organization ?? 'test-org';
    const created = await this.admin.send<StatusHolder>('POST', projectsPath, {
      apiVersion: `${MILO_PROJECT_GROUP}/${MILO_VERSION}`,
      kind: 'Project',
      metadata: { name, labels: { 'resourcemanager.miloapis.com/organization-name': org, ...options.labels } },
      spec: { ownerRef: { kind: 'Organization', name: org } },
    });
    await this.setCondition(
      projectsPath,
      name,
      created,
      options.ready
        ? condition('Ready', 'True', 'Ready', 'Project is ready')
        : condition('Ready', 'Unknown', 'Unknown', 'Waiting for control plane to reconcile'),
    );
  }

  /** Sets the Project's `Ready` condition. */
  setProjectReady(name: string, ready: boolean): Promise<void> {
    return this.setCondition(
      projectsPath,
      name,
      undefined,
      ready
        ? condition('Ready', 'True', 'Ready', 'Project is ready')
        : condition('Ready', 'False', 'ControlPlaneUnavailable', 'The control plane is not available'),
    );
  }

  /** Deletes a Project (its control plane stays until deleteProjectControlPlane). */
  async deleteProject(name: string): Promise<void> {
    await this.admin.send('DELETE', `${projectsPath}/${encodeURIComponent(name)}`);
  }

  /** Creates the ProjectControlPlane Milo's project controller makes for project `name` (same name). */
  async createProjectControlPlane(
    name: string,
    options: Omit<ProjectFixtureOptions, 'organization'> & { uid?: string; organization?: string } = {},
  ): Promise<void> {
    const created = await this.admin.send<StatusHolder>('POST', controlPlanesPath, {
      apiVersion: `${MILO_INFRA_GROUP}/${MILO_VERSION}`,
      kind: 'ProjectControlPlane',
      metadata: {
        name,
        labels: {
          'resourcemanager.miloapis.com/project-name': name,
          ...(options.uid ? { 'resourcemanager.miloapis.com/project-uid': options.uid } : {}),
          ...options.labels,
        },
        annotations: { 'resourcemanager.miloapis.com/owner-name': options.organization ?? 'test-org' },
      },
      spec: {},
    });
    await this.setCondition(
      controlPlanesPath,
      name,
      created,
      options.ready
        ? condition('ControlPlaneReady', 'True', 'Ready', 'The control plane is ready')
        : condition('ControlPlaneReady', 'False', 'Creating', 'Creating a new control plane for the project'),
    );
  }

  /** Sets the ProjectControlPlane's `ControlPlaneReady` condition. */
  setControlPlaneReady(name: string, ready: boolean): Promise<void> {
    return this.setCondition(
      controlPlanesPath,
      name,
      undefined,
      ready
        ? condition('ControlPlaneReady', 'True', 'Ready', 'The control plane is ready')
        : condition('ControlPlaneReady', 'False', 'Unavailable', 'The control plane is not available'),
    );
  }

  /** Deletes the ProjectControlPlane of project `name`; the Project itself stays. */
  async deleteProjectControlPlane(name: string): Promise<void> {
    await this.admin.send('DELETE', `${controlPlanesPath}/${encodeURIComponent(name)}`);
  }

  /** Merges `labels` into the Project's labels (a null value removes a label). */
  async labelProject(name: string, labels: Record<string, string | null>): Promise<void> {
    await this.admin.send('PATCH', `${projectsPath}/${encodeURIComponent(name)}`, { metadata: { labels } }, 'application/merge-patch+json');
  }

  /** Merges `labels` into the ProjectControlPlane's labels (a null value removes a label). */
  async labelProjectControlPlane(name: string, labels: Record<string, string | null>): Promise<void> {
    await this.admin.send(
      'PATCH',
      `${controlPlanesPath}/${encodeURIComponent(name)}`,
      { metadata: { labels } },
      'application/merge-patch+json',
    );
  }

  /** Any other request a test needs, as the server's admin: JSON in and out, MiloRequestError on a non-2xx answer. */
  request<T = Record<string, unknown>>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<T> {
    return this.admin.send<T>(method, path, body, contentType);
  }

  /** Ends the fixtures' connections (the server stays up). */
  close(): void {
    this.admin.close();
  }

  /**
   * Replaces the condition of `cond.type` in the object's status, keeping the others. Starts from `current` when given
   * (the object just created), else reads it; a write conflict reads it again.
   */
  private async setCondition(collection: string, name: string, current: StatusHolder | undefined, cond: ReadinessCondition): Promise<void> {
    const path = `${collection}/${encodeURIComponent(name)}`;
    for (let attempt = 0; ; attempt++) {
      const obj = current ?? (await this.admin.send<StatusHolder>('GET', path));
      current = undefined;
      const others = (obj.status?.conditions ?? []).filter((c) => c.type !== cond.type);
      try {
        await this.admin.send('PUT', `${path}/status`, { ...obj, status: { ...obj.status, conditions: [...others, cond] } });
        return;
      } catch (err) {
        if (!(err instanceof MiloRequestError && err.status === 409) || attempt >= 5) throw err;
      }
    }
  }
}

function condition(type: string, status: ReadinessCondition['status'], reason: string, message: string): ReadinessCondition {
  return {
    type,
    status,
    reason,
    message,
    lastTransitionTime: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
  };
}
