/**
 * The console's sign-in, held for the tab's life (docs/architecture.md, "Operator console"). DOM-free: the
 * storage is passed in (the page gives `sessionStorage`, tests a map).
 *
 * What is kept: the operator token and nothing else, under {@link TOKEN_KEY} in the tab's session storage,
 * so a reload or a link opened in the same tab stays signed in, another tab or a closed browser does not,
 * and no other origin can read it. The admin password is never kept anywhere: the sign-in sends it once to
 * `POST /api/admin/session` and keeps only the short-lived token that answers. Signing out, an expired
 * token and a 401 forget the token.
 *
 * The claims read here ({@link readClaims}) are for the page's own use (which controls to draw, when the
 * session ends): the token is not verified in the page, the service verifies it on every request, so a
 * forged claim gains nothing but controls the service refuses.
 */

/** Where the token is kept in the tab's session storage. */
export const TOKEN_KEY = 'console.operator-token';

/** Roles that may use the console (README, "Who may do what"): support reads, admin and master act too. */
export const OPERATOR_ROLES = ['support', 'admin', 'master'] as const;
/** One operator role. */
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** The part of a storage the session uses (`sessionStorage` is one). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** What the page reads of a token: who, which role, and when it ends. */
export interface TokenClaims {
  /** `sub`: a studio id, or `admin-password` for a token made from the password. */
  readonly subject: string;
  readonly role: OperatorRole;
  /** `exp`, seconds since the epoch. */
  readonly expiresAt: number;
}

/** A signed-in operator: the token and what it says. */
export interface SignedIn extends TokenClaims {
  readonly token: string;
}

/** Why a token is not taken (the sign-in form says it). */
export type TokenProblem = 'malformed' | 'not-an-operator' | 'expired' | 'guest';

/** The words the sign-in form shows for each {@link TokenProblem}. */
export const TOKEN_PROBLEMS: Readonly<Record<TokenProblem, string>> = Object.freeze({
  malformed: 'This is not a token: paste the whole JSON Web Token (three parts separated by dots).',
  'not-an-operator': 'This token is not an operator’s: the console takes a token whose role is support, admin or master.',
  expired: 'This token has expired: make a new one.',
  guest: 'A guest token is not a sign-in.',
});

/** The JSON payload of a compact JWT, or undefined when `token` is not one (no signature is checked). */
export function jwtPayload(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return undefined;
  try {
    // base64url to base64; `atob` takes it without its padding (the forgiving decode of the HTML standard)
    const bytes = Uint8Array.from(atob(parts[1]!.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    const payload: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The claims of an operator token, or why it is not one.
 * @param nowS the time, seconds since the epoch (a token whose `exp` is at or before it has expired).
 */
export function readClaims(token: string, nowS: number): TokenClaims | { readonly problem: TokenProblem } {
  const payload = jwtPayload(token.trim());
  if (!payload || typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return { problem: 'malformed' };
  // as the service reads it: any guest claim but the literal false makes a guest
  if (payload.guest !== undefined && payload.guest !== false) return { problem: 'guest' };
  if (!isOperatorRole(payload.role)) return { problem: 'not-an-operator' };
  if (payload.exp <= nowS) return { problem: 'expired' };
  return { subject: payload.sub, role: payload.role, expiresAt: payload.exp };
}

/** True for a role that may use the console. */
export function isOperatorRole(role: unknown): role is OperatorRole {
  return (OPERATOR_ROLES as readonly unknown[]).includes(role);
}

/** True when the role may act (grant, reverse, ban, erase…), not only look: admin and master (spec 5.3). */
export function canAct(role: OperatorRole): boolean {
  return role === 'admin' || role === 'master';
}

/** Who is signed in, as the header says it: `admin:STUDIO_…`, the name the ledger records for the token's actions. */
export function actorLabel(who: TokenClaims): string {
  return `${who.role}:${who.subject}`;
}

/**
 * The tab's sign-in: one token in `store`, read back only while it is an operator's and unexpired.
 * @param store the tab's session storage (or a stand-in).
 * @param now the clock, milliseconds since the epoch; default `Date.now`.
 */
export class OperatorSession {
  constructor(
    private readonly store: KeyValueStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** The signed-in operator, or undefined (an expired or unreadable token kept before is forgotten here). */
  current(): SignedIn | undefined {
    let token: string | null;
    try {
      token = this.store.getItem(TOKEN_KEY);
    } catch {
      return undefined;
    }
    if (token === null) return undefined;
    const claims = readClaims(token, Math.floor(this.now() / 1000));
    if ('problem' in claims) {
      this.signOut();
      return undefined;
    }
    return { token, ...claims };
  }

  /**
   * Keep `token` as the tab's sign-in.
   * @returns the signed-in operator, or the problem that keeps the token out (nothing is kept then).
   */
  signIn(token: string): SignedIn | { readonly problem: TokenProblem } {
    const trimmed = token.trim();
    const claims = readClaims(trimmed, Math.floor(this.now() / 1000));
    if ('problem' in claims) return claims;
    this.store.setItem(TOKEN_KEY, trimmed);
    return { token: trimmed, ...claims };
  }

  /** Forget the token (signing out, a 401, an expired token). */
  signOut(): void {
    try {
      this.store.removeItem(TOKEN_KEY);
    } catch {
      // a storage that cannot be written holds nothing to forget
    }
  }
}
