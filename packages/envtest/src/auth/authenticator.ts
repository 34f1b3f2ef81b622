/**
 * Who is calling: a client certificate signed by the server's CA (user = CN, groups = O, as kube-apiserver's x509
 * authenticator) or a bearer token from the server's static token table. Tokens never appear in errors or logs.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { InvalidOptionsError } from '../errors.js';
import { checkTokenUser, tokenExpiry, type TokenOptions, type TokenUser } from './token-user.js';

/**
 * The authenticated caller of a request: user name, uid and groups.
 */
export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
}

export type AuthResult = { ok: true; user: UserInfo } | { ok: false };

export class Authenticator {
  private readonly tokens = new Map<string, { user: UserInfo; expiresAt: number }>();
  /**
   * The certificate user of each TLS connection, read once: a connection's peer certificate cannot change, and
   * reading it (`getPeerCertificate` decodes the whole certificate) cost an eighth of a busy server's CPU.
   */
  private readonly certUsers = new WeakMap<TLSSocket, UserInfo | null>();

  addToken(token: string, user: string | TokenUser, options?: TokenOptions): void {
    const fail = (message: string) => new InvalidOptionsError(message);
    const { username, uid, groups = [] } = checkTokenUser(token, user, fail);
    const expiresAt = tokenExpiry(options, fail);
    const all = groups.includes('system:authenticated') ? [...groups] : [...groups, 'system:authenticated'];
    this.tokens.set(token, { user: { name: username, ...(uid !== undefined ? { uid } : {}), groups: all }, expiresAt });
  }

  authenticate(req: IncomingMessage): AuthResult {
    const socket = req.socket as TLSSocket;
    if (socket.authorized === true) {
      const user = this.certUser(socket);
      if (user) return { ok: true, user };
    }
    const header = req.headers.authorization;
    if (typeof header === 'string') {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const entry = m ? this.tokens.get(m[1]!) : undefined;
      if (entry && Date.now() >= entry.expiresAt) this.tokens.delete(m![1]!);
      return entry && Date.now() < entry.expiresAt ? { ok: true, user: entry.user } : { ok: false };
    }
    return { ok: false };
  }

  private certUser(socket: TLSSocket): UserInfo | null {
    let user = this.certUsers.get(socket);
    if (user === undefined) {
      const cert = socket.getPeerCertificate();
      const cn = firstValue(cert.subject?.CN);
      user = cn ? { name: cn, groups: [...toArray(cert.subject?.O), 'system:authenticated'] } : null;
      this.certUsers.set(socket, user);
    }
    return user;
  }
}

function toArray(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function firstValue(v: string | string[] | undefined): string | undefined {
  return toArray(v)[0];
}
