/**
 * The player service's pure pieces (spec 2.6, 2.8, 4.8; `api/_lib/player/service.ts`): `If-Match`
 * parsing (RFC 9110 13.1.1), the era query (never a silent default), character keys (a uuid, never an
 * `STDG-*` display stamp), the display stamp itself (checked against an independent derivation), the
 * request fingerprint, and the account-scoped fields a character body may not carry.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { accountScopedProblems, characterIdOf, ifMatchRevisions, revisionTag, studioCodeOf } from '../../api/_lib/player/service.js';
import { thrownRefusal } from '../helpers/ledger-ops.js';

describe('If-Match', () => {
  it('reads every strong revision tag of the list, trimmed, and ignores anything else', () => {
    expect(ifMatchRevisions('"3"')).toEqual([3]);
    expect(ifMatchRevisions('  "3" ,"17",  "0"  ')).toEqual([3, 17, 0]);
    expect(ifMatchRevisions('W/"3", "x3", "3x", 3, "", "1234567890123456", "123456789012345"')).toEqual([123456789012345]);
    expect(ifMatchRevisions('"3" "4"')).toEqual([]);
    expect(revisionTag(12)).toBe('"12"');
  });

  it('requires the header: absent, blank or "*" is 428 with what to send', () => {
    for (const h of [null, '', '   ', '*', ' * ']) {
      const e = thrownRefusal(() => ifMatchRevisions(h));
      expect(e.code).toBe('PRECONDITION_REQUIRED');
      expect(e.message).toMatch(/^Send If-Match with the ETag/);
    }
  });
});

describe('character keys', () => {
  const id = '7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10';
  it('takes a uuid, lower-cased, and refuses anything around or instead of it', () => {
    expect(characterIdOf(id.toUpperCase())).toBe(id);
    for (const bad of [undefined, '', `x${id}`, `${id}x`, id.slice(1), id.replace(/-/g, ''), 'g'.repeat(8) + id.slice(8)]) {
      const e = thrownRefusal(() => characterIdOf(bad));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'A character is named by its id (characters.id), an RFC 4122 uuid.']);
    }
  });

  it('refuses a display stamp as a key, saying what it is', () => {
    const stamp = studioCodeOf(id);
    for (const k of [stamp, stamp.toLowerCase()]) {
      const e = thrownRefusal(() => characterIdOf(k));
      expect(e.code).toBe('BAD_REQUEST');
      expect(e.message).toBe(
        `"${k}" is a character display stamp (characters.studio_code), which is never a key; use the character's id (characters.id, a uuid).`,
      );
    }
    expect(thrownRefusal(() => characterIdOf(`STDG-${'X'.repeat(60)}`)).message).toMatch(
      new RegExp(`^"STDG-${'X'.repeat(35)}" is a character display stamp`),
    );
    expect(thrownRefusal(() => characterIdOf(`xSTDG-1234-5678`)).message).toMatch(/an RFC 4122 uuid\.$/);
  });

  it('derives the display stamp from the first 40 bits of SHA-1 in Crockford base32', () => {
    const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    for (const cid of [id, '00000000-0000-4000-8000-000000000000', 'ffffffff-ffff-4fff-bfff-ffffffffffff']) {
      const forty = BigInt('0x' + createHash('sha1').update(`character:${cid}`).digest('hex').slice(0, 10));
      const digits = Array.from({ length: 8 }, (_, i) => crockford[Number((forty >> BigInt(35 - 5 * i)) & 31n)]).join('');
      expect(studioCodeOf(cid)).toBe(`STDG-${digits.slice(0, 4)}-${digits.slice(4)}`);
    }
  });
});

describe('account-scoped fields on a character', () => {
  it('names each one sent under progress, and nothing for a body without an object there', () => {
    expect(accountScopedProblems({ progress: { bag: [], wallet: 1, attributes: {} } })).toEqual([
      { name: '/progress/bag', message: '"bag" is account-scoped (spec 2.8): it belongs to the account, never to a character.' },
      { name: '/progress/wallet', message: '"wallet" is account-scoped (spec 2.8): it belongs to the account, never to a character.' },
    ]);
    for (const body of [null, {}, { progress: null }, { progress: [] }, { progress: 'bag' }, { progress: 3 }])
      expect(accountScopedProblems(body)).toEqual([]);
  });
});
