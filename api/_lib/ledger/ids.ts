/**
 * Account identifiers (spec 2.6, 2.8), minted by the server only.
 *
 * - `accounts.id`, `users.id` and entry ids: RFC 4122 version 4 uuids (`crypto.randomUUID`).
 * - `studio_id`: `STUDIO_` followed by 16 characters of Crockford base32 (`0-9`, `A-Z` without
 *   `I`, `L`, `O`, `U`) from 80 random bits, e.g. `STUDIO_7QF3K2M9X4D1H8TB`. Crockford's alphabet
 *   is read aloud and typed without confusion (no I/1, O/0), which support staff do with this id.
 *   Incoming `studioId`s are accepted more widely (`STUDIO_` + 1-64 of `A-Za-z0-9_-`, the request
 *   schema's pattern) so ids of an older minting remain selectable.
 */
import { randomBytes, randomUUID } from 'node:crypto';

/** Crockford base32 alphabet. */
export const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Pattern of a minted studio id. */
export const MINTED_STUDIO_ID = /^STUDIO_[0-9A-HJKMNP-TV-Z]{16}$/;

/** Pattern of a studio id accepted as a selector. */
export const STUDIO_ID = /^STUDIO_[A-Za-z0-9_-]{1,64}$/;

/** Pattern of an RFC 4122 uuid (any version), lower or upper case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A new `STUDIO_*` id (80 random bits). */
export function mintStudioId(random: (n: number) => Uint8Array = randomBytes): string {
  const bytes = random(10);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(value >>> bits) & 31];
    }
    value &= (1 << bits) - 1;
  }
  return `STUDIO_${out}`;
}

/** A new RFC 4122 version 4 uuid, lower case. */
export function mintUuid(): string {
  return randomUUID();
}
