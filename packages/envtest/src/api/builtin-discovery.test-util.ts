/** A GET with a bearer token over HTTPS to a server with its own CA, answered as JSON (for discovery snapshots). */
import { request } from 'node:https';

export function httpsGet(base: string, path: string, token: string, caPem: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, base),
      { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' }, ca: caPem },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`GET ${path}: ${res.statusCode}: ${body.slice(0, 200)}`));
          else resolve(JSON.parse(body));
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
