/** The action subresources a server answers (see ActionSubresource), by group, resource and subresource name. */
import type { ActionSubresource } from './options.js';

export class ActionTable {
  private readonly actions = new Map<string, ActionSubresource>();

  /** Serves `action` on every logical cluster; a later one with the same name replaces it. */
  add(action: ActionSubresource): void {
    this.actions.set(`${action.group}/${action.resource}/${action.subresource}`, action);
  }

  /** The action by that name on a resource, if one is served. */
  get(group: string, resource: string, subresource: string): ActionSubresource | undefined {
    return this.actions.get(`${group}/${resource}/${subresource}`);
  }

  /** The actions of a resource, for discovery. */
  of(group: string, resource: string): ActionSubresource[] {
    return [...this.actions.values()].filter((a) => a.group === group && a.resource === resource);
  }
}
