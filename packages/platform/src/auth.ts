import { createHmac, createSecretKey, KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AppError } from './errors';

export type PermissionLetter = 'r' | 'w' | 'x' | 'd';

/** The verified caller, as the gateway hands it to services. */
export interface Principal {
  userId: string;
  username: string;
  /** permission key -> letters held (union over the user's roles). */
  permissions: Record<string, PermissionLetter[]>;
  /** `null` means every project; otherwise the project codes the caller may see. */
  projects: string[] | null;
  /**
   * `key:letter` -> the projects that permission covers where it differs from `projects` (a role
   * held through a user group covers the group's projects only). The gateway narrows `projects` to
   * the scope of the permission a route requires ({@link scopedTo}), so services apply one list.
   */
  scopes?: Record<string, string[] | null>;
  tokenKind: 'login' | 'api';
  tokenId: string;
}

export function hasPermission(p: Principal, key: string, letter: PermissionLetter): boolean {
  return p.permissions[key]?.includes(letter) ?? false;
}

/** The principal as a route that requires `key:letter` sees it: its projects are that permission's. */
export function scopedTo(p: Principal, key: string, letter: PermissionLetter): Principal {
  const scope = p.scopes?.[`${key}:${letter}`];
  return scope === undefined ? p : { ...p, projects: scope };
}

export function canSeeProject(p: Principal, projectCode: string): boolean {
  return p.projects === null || p.projects.includes(projectCode);
}

/**
 * The projects a record of several projects (a report, a notifier) covers when a caller asks for
 * `requested`: those (and `outside`, the ones the caller may not see), or with none asked for, every
 * project the caller sees (all of them for an unrestricted caller).
 */
export function requestedProjects(
  p: Principal,
  requested: string[],
): { allProjects: boolean; projectCodes: string[]; outside: string[] } {
  const codes = [...new Set(requested)];
  if (codes.length === 0)
    return p.projects === null
      ? { allProjects: true, projectCodes: [], outside: [] }
      : { allProjects: false, projectCodes: [...p.projects], outside: [] };
  return { allProjects: false, projectCodes: codes, outside: codes.filter((c) => !canSeeProject(p, c)) };
}

interface InternalClaims {
  /** The calling service (gateway for user requests). */
  svc: string;
  principal?: Principal;
}

const ISSUER = 'bulwark-internal';
const AUDIENCE = 'bulwark-services';

/**
 * Short-lived tokens that only holders of the internal secret can mint: the gateway vouches for a
 * user with one, services vouch for themselves on gRPC. A service refuses any call without one,
 * so nothing reaches it around the gateway.
 */
export class InternalAuth {
  private cached: { token: string; until: number } | undefined;
  /**
   * The secret as a key object, made once: given a string, jsonwebtoken first tries to read it as a
   * PEM key on every call, and that failed attempt cost more CPU than the rest of a listed page.
   */
  private readonly key: KeyObject;

  constructor(
    private readonly secret: string,
    readonly self: string,
    private readonly ttlSeconds = 60,
  ) {
    if (secret.length < 32) throw new Error('the internal secret must be at least 32 characters');
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  forPrincipal(principal: Principal): string {
    const claims: InternalClaims = { svc: this.self, principal };
    return jwt.sign(claims, this.key, {
      algorithm: 'HS256',
      issuer: ISSUER,
      audience: AUDIENCE,
      expiresIn: this.ttlSeconds,
    });
  }

  /** This service's own token, reused while it has more than half its life left. */
  forService(): string {
    const now = Date.now();
    if (!this.cached || this.cached.until < now) {
      const token = jwt.sign({ svc: this.self } satisfies InternalClaims, this.key, {
        algorithm: 'HS256',
        issuer: ISSUER,
        audience: AUDIENCE,
        expiresIn: this.ttlSeconds,
      });
      this.cached = { token, until: now + (this.ttlSeconds * 1000) / 2 };
    }
    return this.cached.token;
  }

  /**
   * A key for one purpose (signing the gateway's CSRF values): every process of the deployment
   * derives the same one from the internal secret, and holding it gives nothing of the secret.
   */
  derivedKey(purpose: string): Buffer {
    return createHmac('sha256', this.secret).update(`bulwark derived key: ${purpose}`).digest();
  }

  verify(token: string | undefined): InternalClaims {
    if (!token) throw new AppError('unauthenticated', 'Request did not come through the gateway');
    try {
      const claims = jwt.verify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
      }) as InternalClaims & jwt.JwtPayload;
      return { svc: claims.svc, principal: claims.principal };
    } catch {
      throw new AppError('unauthenticated', 'Invalid internal credentials');
    }
  }
}

export const INTERNAL_AUTH_HEADER = 'x-bulwark-internal';

/** Set by the gateway (overwriting anything a client sent): the address it saw the request from. */
export const CLIENT_IP_HEADER = 'x-bulwark-client-ip';

/**
 * Names the client that made a request on the caller's behalf (`mcp`: an AI assistant through the
 * gateway's MCP server). The gateway passes it on only from its MCP server's own calls and drops it
 * from every other request, so a caller cannot mark its own change as an assistant's.
 */
export const VIA_HEADER = 'x-bulwark-via';

/**
 * Bumped by identity after every change to users, roles or tokens. Cached authentications remember
 * the epoch they were made in and are dropped when it moves, so a revocation takes effect at once
 * on every gateway that shares the cache.
 */
export const AUTH_EPOCH_KEY = 'auth:epoch';
