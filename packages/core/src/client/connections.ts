/**
 * The keep-alive connections of one Transport to its API server under one TLS identity: one undici Client per
 * connection, lent whole to one request or one watch at a time and given back when its answer has been read.
 *
 * Lending whole connections, rather than handing requests to an undici Pool, is what keeps an idle member cheap: a
 * Pool preallocates a 2,048-slot queue (16 KiB) for requests that find every connection busy, and a Transport never
 * lets a request wait there (RequestSlots bounds the requests in flight, and a watch holds its own connection), so
 * at thousands of members that queue was a third of the library's memory per cluster. Connections are made on
 * demand, reused most recently used first (its socket is the likeliest to still be open), and share one connector,
 * so TLS sessions are resumed across them.
 */
import { Client, buildConnector } from 'undici';

export interface ConnectionOptions {
  /** TLS and socket settings for every connection (undici's connector options). */
  connect: buildConnector.BuildOptions;
  /** How long an idle connection is kept open. */
  keepAliveTimeoutMs: number;
}

export class Connections {
  private readonly idle: Client[] = [];
  private readonly every = new Set<Client>();
  private readonly connector: buildConnector.connector;
  private closed = false;

  constructor(
    private readonly origin: string,
    private readonly options: ConnectionOptions,
  ) {
    this.connector = buildConnector(options.connect);
  }

  /** A connection for one request or watch, idle or new; give it back with `giveBack` once its answer is read. */
  lend(): Client {
    const reused = this.idle.pop();
    if (reused) return reused;
    const client = new Client(this.origin, {
      connect: this.connector,
      pipelining: 1,
      keepAliveTimeout: this.options.keepAliveTimeoutMs,
      keepAliveMaxTimeout: this.options.keepAliveTimeoutMs,
    });
    this.every.add(client);
    return client;
  }

  /** Returns a lent connection for reuse (a no-op once closed: closing already ends it). */
  giveBack(client: Client): void {
    if (!this.closed && this.every.has(client)) this.idle.push(client);
  }

  /** Lets requests and watches in flight finish, then closes every connection. `destroy` still reaches them meanwhile. */
  async close(): Promise<void> {
    await this.end((client) => client.close());
  }

  /** Closes every connection now, failing whatever is in flight on them. */
  async destroy(): Promise<void> {
    await this.end((client) => client.destroy());
    this.every.clear();
  }

  private async end(how: (client: Client) => Promise<void>): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    await Promise.all([...this.every].map((client) => how(client).catch(() => undefined)));
  }
}
