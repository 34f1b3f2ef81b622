/**
 * Weighted rendezvous (highest random weight) hashing: which peer owns a cluster. Each (cluster, peer) pair gets a
 * uniform hash u in (0, 1) and the score -w / ln(u); the highest score wins. That score is the logarithmic method of
 * Schindelhauer and Schomaker, under which a peer of weight w wins a share w / Σw of the names, and adding or
 * removing a peer moves only the names it gains or held (multiplying a 64-bit hash by the weight instead would wrap
 * around and not be proportional). Ties (equal scores, practically only equal hashes) go to the smaller peer ID, so
 * every replica computes the same owner from the same peer list, in any order.
 */
import { createHash } from 'node:crypto';
import type { ClusterName } from '../fleet/cluster-name.js';
import { ShardingConfigError } from './errors.js';

/** A replica in a shard group: its identity and its share of the fleet. */
export interface Peer {
  readonly id: string;
  /** Relative share of the fleet; a positive finite number. */
  readonly weight: number;
}

/** 2^53: the hash keeps 53 bits so it is exact as a double. */
const twoPow53 = 2 ** 53;

/** A uniform number in the open interval (0, 1), from the SHA-256 of the pair. */
export function uniformHash(cluster: ClusterName, peerId: string): number {
  // Length-prefixed so ("a|b", "c") and ("a", "b|c") never hash alike.
  const digest = createHash('sha256').update(`${cluster.length}:${cluster}|${peerId}`).digest();
  const high = digest.readUInt32BE(0) >>> 11; // 21 bits
  const low = digest.readUInt32BE(4); // 32 bits
  const bits = high * 2 ** 32 + low; // 0 … 2^53 − 1
  return (bits + 0.5) / twoPow53; // never 0, never 1
}

/** The rendezvous score of `peer` for `cluster`; the highest score owns it. */
export function score(cluster: ClusterName, peer: Peer): number {
  return -peer.weight / Math.log(uniformHash(cluster, peer.id));
}

/** The owner of `cluster` among `peers`, or undefined when there are none. */
export function ownerOf(cluster: ClusterName, peers: readonly Peer[]): Peer | undefined {
  let best: Peer | undefined;
  let bestScore = -Infinity;
  for (const peer of peers) {
    const s = score(cluster, peer);
    if (s > bestScore || (s === bestScore && best !== undefined && peer.id < best.id)) {
      best = peer;
      bestScore = s;
    }
  }
  return best;
}

/** Throws ShardingConfigError unless `weight` is a positive finite number. */
export function validateWeight(weight: number, what = 'weight'): number {
  if (!(typeof weight === 'number' && Number.isFinite(weight) && weight > 0)) {
    throw new ShardingConfigError(`${what} must be a positive finite number, got ${String(weight)}`);
  }
  return weight;
}
