/**
 * Free loopback ports for control-plane processes. The kernel picks a port for a throw-away listener; the port is
 * then free until the child binds it. Another process may grab it in between, which the caller detects (the child
 * exits with "address already in use") and answers by starting again. Within this process a port is never handed
 * out twice, so environments started side by side never race each other.
 */
import { createServer } from 'node:net';

const handedOut = new Set<number>();

/** Returns a TCP port on 127.0.0.1 that was free a moment ago and that this process has not handed out before. */
export async function freeLoopbackPort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await probePort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free loopback port found after 100 attempts');
}

function probePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolvePort(address.port);
        else reject(new Error('listener has no TCP address'));
      });
    });
  });
}
