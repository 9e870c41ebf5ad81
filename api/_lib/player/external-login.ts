/**
 * External login and link (spec 4.8 `POST /api/auth/external`, `POST /api/auth/external-link`; 5.5).
 *
 * Login: the platform's token is verified (`api/_lib/auth/external.ts`); an identity seen before logs
 * into its linked account; a new one gets an account and a user whose username is
 * `<provider>:<external user id>` and whose display name is the platform's username. The account is
 * created under the client key `external:<provider>:<external user id>` (in a key scope of its own, apart from
 * operators' keys, so no account an operator creates can claim it first), so two simultaneous first
 * logins of one identity create one account (the second finds the first's), and the identity is then
 * bound to it (the first binding wins; a login always answers the bound account). The answer carries our
 * token for the account (role `player`, `LOGIN_TOKEN_TTL_S`), the account and its characters of every era.
 *
 * Link: the caller's token names the account; the identity is bound to it. Bound to another account: 409.
 *
 * Kept: the external user id, its username and the link time; never the platform's token or key.
 */
import { externalVerifier, type ExternalIdentity } from '../auth/external.js';
import { mintToken } from '../auth/tokens.js';
import type { ServiceConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { mintStudioId, mintUuid } from '../ledger/ids.js';
import { bannedAt, suspended } from '../ledger/service.js';
import type { Account, LedgerStore } from '../ledger/types.js';
import { characterView } from './service.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { requestFingerprint } from '../stores/idempotency.js';
import { ERAS, type ExternalLink, type PlayerStore } from './types.js';

/** Lifetime of the token a login answers, seconds. */
export const LOGIN_TOKEN_TTL_S = 3600;

/** Body of both routes (schema `auth-external`). */
export interface ExternalTokenBody {
  /** The platform's token (JWT). */
  readonly token: string;
}

/** The identity of a platform token. @throws ServiceError 401, 503 */
function identityOf(config: ServiceConfig, token: string): Promise<ExternalIdentity> {
  return externalVerifier(config.externalAuth, config.jwt.clockToleranceS).verify(token);
}

/** The account and characters part of a login answer. */
async function mirrorOf(players: PlayerStore, account: Account) {
  const lists = await Promise.all(ERAS.map((era) => players.characters(account.accountId, era)));
  return {
    account: {
      accountId: account.accountId,
      studioId: account.studioId,
      displayName: account.displayName,
      userId: account.userId,
      username: account.username,
    },
    characters: lists.flat().map(characterView),
  };
}

/**
 * Log in with a platform token.
 * @returns our token, the account, its characters, the link, and whether this login created the account.
 * @throws ServiceError 401 (a token the platform did not issue), 409 (the username is held by an account
 *   made another way), 503 (login not configured, tokens not issued here, a store or the platform's keys
 *   unreachable)
 */
export async function externalLogin(
  config: ServiceConfig,
  ledger: LedgerStore,
  players: PlayerStore,
  body: ExternalTokenBody,
  clock: Clock = systemClock,
) {
  if (config.jwt.keys.kind !== 'secret')
    throw new ServiceError('UPSTREAM_UNAVAILABLE', 'This deployment verifies tokens but does not issue them (JWT_JWKS_URL is set).');
  const identity = await identityOf(config, body.token);
  let link = await players.externalLink(identity.provider, identity.externalUserId);
  let created = false;
  if (!link) {
    const at = clock().toISOString();
    const clientKey = `external:${identity.provider}:${identity.externalUserId}`;
    const made = await createExternalAccount(ledger, identity, clientKey, at);
    const bound = await players.linkExternal({ ...identity, accountId: made.account.accountId, linkedAt: at });
    link = bound.link;
    created = made.created && bound.status === 'linked';
  }
  const account = await ledger.findAccount({ accountId: link.accountId });
  if (!account) throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The linked account cannot be read; try again.');
  // a banned account gets no token; one logged out in this very second waits for the next, or its new
  // token (whose iat has whole seconds) would be refused as issued before the revocation
  const access = await ledger.access(account.accountId);
  if (bannedAt(access, clock())) throw suspended(access.ban!);
  const revoked = access.sessionsRevokedAt ?? -1;
  const wait = (revoked + 1) * 1000 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, Math.min(wait + 5, 1100)));
  const token = await mintToken(config.jwt, { subject: account.studioId, role: 'player', ttlSeconds: LOGIN_TOKEN_TTL_S });
  // read again once the token exists, past any instance's cache: a ban answered before this login answers
  // holds for it too, made on whichever instance (a ban written after this read revokes the token, whose
  // iat is not later than the ban's second)
  const now = await ledger.access(account.accountId, { fresh: true });
  if (bannedAt(now, clock())) throw suspended(now.ban!);
  return {
    token,
    tokenType: 'Bearer' as const,
    expiresIn: LOGIN_TOKEN_TTL_S,
    created,
    link: linkView(link),
    ...(await mirrorOf(players, account)),
  };
}

/**
 * The account of a new identity, created once under its client key (every login of the identity is the
 * same creation, so its fingerprint is the key's); a minted studio id that is taken is minted again.
 * @throws ServiceError 409 when the username is held by an account made another way
 */
async function createExternalAccount(ledger: LedgerStore, identity: ExternalIdentity, clientKey: string, at: string) {
  for (let attempt = 0; attempt < 4; attempt++) {
    const out = await ledger.createAccount({
      account: {
        accountId: mintUuid(),
        studioId: mintStudioId(),
        displayName: identity.username,
        userId: mintUuid(),
        username: `${identity.provider}:${identity.externalUserId}`,
        createdAt: at,
      },
      clientKey,
      keyScope: 'external-login',
      fingerprint: requestFingerprint({ clientKey }),
    });
    switch (out.status) {
      case 'created':
      case 'replayed':
        return { account: out.account, created: out.status === 'created' };
      case 'studio-id-taken':
        continue;
      default:
        throw new ServiceError(
          'CONFLICT',
          `The username "${identity.provider}:${identity.externalUserId}" is held by another account.`.slice(0, 300),
        );
    }
  }
  throw new ServiceError('CONFLICT', 'The minted studio id is taken; try again.');
}

/** A link as answered. */
function linkView(link: ExternalLink) {
  return { provider: link.provider, externalUserId: link.externalUserId, username: link.username, linkedAt: link.linkedAt };
}

/**
 * Bind a platform identity to the caller's account.
 * @returns the link and whether it was made now.
 * @throws ServiceError 401, 409 CONFLICT (bound to another account), 503
 */
export async function externalLinkTo(
  config: ServiceConfig,
  players: PlayerStore,
  account: Account,
  body: ExternalTokenBody,
  clock: Clock = systemClock,
) {
  const identity = await identityOf(config, body.token);
  const out = await players.linkExternal({ ...identity, accountId: account.accountId, linkedAt: clock().toISOString() });
  if (out.status === 'taken') throw new ServiceError('CONFLICT', 'This external identity is linked to another account.');
  return { linked: out.status === 'linked', link: linkView(out.link) };
}
