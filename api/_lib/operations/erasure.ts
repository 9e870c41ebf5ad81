/**
 * Erasure of a player's personal data (GDPR article 17; spec 2.8; docs/architecture.md, "Erasure and the
 * chain"): the account's display name and username, its place in the name index, the notes of its wallet
 * entries, the notes of its bag reversals and of its items' voids, and its external links are removed, and the account is closed (its sessions revoked, a ban
 * without end that no operator can replace or lift). Balances, postings, transfers and item histories
 * stay, and still verify: no hash covers what is removed.
 *
 * Steps: the ledger's erasure first, atomic and once per idempotency key (a key reused for another
 * account is 422 and changes nothing), then the links and notes in the player store, each safe to
 * repeat: a replay of the key completes an erasure a failure interrupted between them.
 */
import { ServiceError } from '../errors.js';
import { accessAnswer, revocationSecond, type AccessAnswer } from '../ledger/service.js';
import type { LedgerStore } from '../ledger/types.js';
import type { PlayerStore } from '../player/types.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { requestFingerprint } from '../stores/idempotency.js';
import { noteAuditAccount } from '../util/audit-scope.js';
import { accountNamed } from './lookup.js';

/** Body of `POST /api/admin/players/{studioId}/erase` after schema validation. */
export interface EraseBody {
  /** Why (the data request's reference); checked as stored text, not kept. */
  readonly reason: string;
  readonly idempotencyKey: string;
}

/**
 * Erase an account (see the module header).
 * @param key the account's studio id or account id.
 * @returns the account and its access after the erasure (`idempotent` on a replay of the key).
 * @throws ServiceError NOT_FOUND, IDEMPOTENCY_KEY_REUSED (422), UPSTREAM_UNAVAILABLE (503: send the same key again).
 */
export async function erasePlayer(
  stores: { readonly ledger: LedgerStore; readonly player: PlayerStore },
  key: string,
  body: EraseBody,
  clock: Clock = systemClock,
): Promise<AccessAnswer> {
  const account = await accountNamed(stores.ledger, key);
  // the request's audit record names the account it erases (docs/architecture.md, "Audit log")
  noteAuditAccount(account.accountId);
  const now = clock();
  const out = await stores.ledger.eraseAccount({
    accountId: account.accountId,
    key: body.idempotencyKey,
    fingerprint: requestFingerprint({ erase: account.accountId }),
    at: revocationSecond(now),
    atIso: now.toISOString(),
  });
  switch (out.status) {
    case 'created':
    case 'replayed':
      await stores.player.removeExternalLinks(account.accountId);
      await stores.player.blankNotes(account.accountId);
      return accessAnswer(out.account, await stores.ledger.access(account.accountId), out.status === 'replayed', now);
    case 'key-reused':
      throw new ServiceError('IDEMPOTENCY_KEY_REUSED', 'This idempotency key erased another account; nothing changed. Use a new key.');
    default:
      throw new ServiceError('NOT_FOUND', 'No account has this studioId or accountId.');
  }
}
