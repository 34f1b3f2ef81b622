/**
 * After the faults, what must hold: in every member, each source has its derived object with the source's data, and
 * no derived object is left without its source. Read through the members' admin clients (the servers' truth, not the
 * controller's cache); polled until it holds or the settle window ends, then the differences are the loss.
 */
import { derivedData, derivedName, NAMESPACE, SOURCE_LABEL, type ConfigMap } from './controller.js';
import type { ChaosFleet } from './fleet.js';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

export interface Verdict {
  members: number;
  sources: number;
  derived: number;
  /** One line per difference: `<member>: <what is wrong>`. */
  problems: string[];
}

export async function check(fleet: ChaosFleet): Promise<Verdict> {
  const verdict: Verdict = { members: fleet.members.length, sources: 0, derived: 0, problems: [] };
  for (const m of fleet.members) {
    const all = (await m.admin.apiReader.list<ConfigMap>(configMaps, { namespace: NAMESPACE })).items;
    const sources = all.filter((c) => c.metadata.labels?.[SOURCE_LABEL] === 'true');
    const derived = new Map(all.filter((c) => c.metadata.name?.endsWith('-derived')).map((c) => [c.metadata.name!, c]));
    verdict.sources += sources.length;
    verdict.derived += derived.size;
    for (const source of sources) {
      const name = derivedName(source.metadata.name!);
      const found = derived.get(name);
      derived.delete(name);
      if (!found) verdict.problems.push(`${m.name}: ${source.metadata.name} has no derived object`);
      else if (JSON.stringify(found.data) !== JSON.stringify(derivedData(source))) {
        verdict.problems.push(`${m.name}: ${name} holds ${JSON.stringify(found.data)}, not ${JSON.stringify(derivedData(source))}`);
      }
    }
    for (const orphan of derived.keys()) verdict.problems.push(`${m.name}: ${orphan} is left after its source went`);
  }
  return verdict;
}

/** Checks until nothing is wrong or `deadline` passes; the last verdict. */
export async function checkUntil(fleet: ChaosFleet, deadline: number): Promise<Verdict> {
  for (;;) {
    const verdict = await check(fleet);
    if (verdict.problems.length === 0 || Date.now() >= deadline) return verdict;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
