/**
 * Who is calling: a client certificate signed by the server's CA (user = CN, groups = O, as kube-apiserver's x509
 * authenticator) or a bearer token from the server's static token table. Tokens never appear in errors or logs.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
}

export type AuthResult = { ok: true; user: UserInfo } | { ok: false };

export class Authenticator {
  private readonly tokens = new Map<string, UserInfo>();

  addToken(token: string, user: string | UserInfo): void {
    if (!token || /\s/.test(token)) throw new TypeError('a bearer token must be non-empty and contain no whitespace');
    const info = typeof user === 'string' ? { name: user, groups: ['system:authenticated'] } : withAuthenticated(user);
    if (!info.name) throw new TypeError('a token user needs a name');
    this.tokens.set(token, info);
  }

  authenticate(req: IncomingMessage): AuthResult {
    const socket = req.socket as TLSSocket;
    if (socket.authorized === true) {
      const cert = socket.getPeerCertificate();
      const cn = firstValue(cert.subject?.CN);
      if (cn) return { ok: true, user: { name: cn, groups: [...toArray(cert.subject?.O), 'system:authenticated'] } };
    }
    const header = req.headers.authorization;
    if (typeof header === 'string') {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const user = m ? this.tokens.get(m[1]!) : undefined;
      return user ? { ok: true, user } : { ok: false };
    }
    return { ok: false };
  }
}

function withAuthenticated(user: UserInfo): UserInfo {
  return user.groups.includes('system:authenticated') ? user : { ...user, groups: [...user.groups, 'system:authenticated'] };
}

function toArray(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function firstValue(v: string | string[] | undefined): string | undefined {
  return toArray(v)[0];
}
