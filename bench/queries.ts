/**
 * Seeded benchmark queries drawn from records, a quarter of each kind:
 * - `exact`: a record's name as written;
 * - `prefix`: the first 3 to 5 characters of one word of a name;
 * - `typo`: a name with one edit (substitution, insertion, deletion or transposition) in one word of
 *   at least 4 letters;
 * - `two-terms`: two words of a name, the second cut to a 2-4 character prefix when longer.
 */
import type { SearchRecord } from '../api/_lib/search/index.js';
import { createRng, type Rng } from '../api/_lib/util/prng.js';

/** Kind of benchmark query. */
export type QueryKind = 'exact' | 'prefix' | 'typo' | 'two-terms';
/** One benchmark query with the record it was drawn from. */
export interface BenchQuery {
  readonly kind: QueryKind;
  readonly q: string;
  readonly from: SearchRecord;
}

const KINDS: readonly QueryKind[] = ['exact', 'prefix', 'typo', 'two-terms'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

function typo(word: string, rng: Rng): string {
  const i = 1 + rng.int(word.length - 2);
  switch (rng.int(4)) {
    case 0:
      return word.slice(0, i) + LETTERS[rng.int(26)] + word.slice(i + 1);
    case 1:
      return word.slice(0, i) + LETTERS[rng.int(26)] + word.slice(i);
    case 2:
      return word.slice(0, i) + word.slice(i + 1);
    default:
      return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  }
}

/** `count` queries (kinds in turn) drawn with `seed` from records that have a name with a word. */
export function makeQueries(records: readonly SearchRecord[], seed: number, count = 1000): BenchQuery[] {
  const rng = createRng(seed);
  const usable = records.filter((r) => /[A-Za-z0-9]/.test(r.name));
  const out: BenchQuery[] = [];
  if (usable.length === 0) return out;
  for (let i = 0; out.length < count && i < count * 20; i++) {
    const kind = KINDS[out.length % KINDS.length] as QueryKind;
    const from = rng.pick(usable);
    const words = from.name.split(/\s+/).filter((w) => /[A-Za-z0-9]/.test(w));
    if (kind === 'exact') out.push({ kind, q: from.name, from });
    else if (kind === 'prefix') {
      const long = words.filter((w) => w.length >= 3);
      if (long.length === 0) continue;
      const w = rng.pick(long);
      out.push({ kind, q: w.slice(0, Math.min(w.length, 3 + rng.int(3))), from });
    } else if (kind === 'typo') {
      const at = words.map((w, k) => (/^[A-Za-z]{4,}$/.test(w) ? k : -1)).filter((k) => k >= 0);
      if (at.length === 0) continue;
      const k = rng.pick(at);
      out.push({ kind, q: words.map((w, j) => (j === k ? typo(w, rng) : w)).join(' '), from });
    } else {
      if (words.length < 2) continue;
      const a = rng.int(words.length - 1);
      const second = words[a + 1] as string;
      const cut = second.length > 4 ? second.slice(0, 2 + rng.int(3)) : second;
      out.push({ kind, q: `${words[a] as string} ${cut}`, from });
    }
  }
  return out;
}
