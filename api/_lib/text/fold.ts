/**
 * Text folding shared by every matcher of the service (search §4.4, collection `q` and keys §4.2,
 * icon and sprite search §4.5-4.6), so that "Épée", "epee" and "EPEE" compare equal everywhere.
 */

/** Letters that NFKD does not decompose, spelled out (lower case). */
const SPECIAL_LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
};
const SPECIAL_RE = /[ßæœøđðłþıħŧ]/g;
const MARKS_RE = /\p{M}+/gu;
const APOSTROPHES_RE = /['’ʼ]/g;
const PRINTABLE_ASCII_RE = /^[\x20-\x7e]*$/;

/** Unicode NFKD with combining marks removed; case is kept (`Épée` → `Epee`). */
export function stripAccents(text: string): string {
  return PRINTABLE_ASCII_RE.test(text) ? text : text.normalize('NFKD').replace(MARKS_RE, '');
}

/**
 * `text` without accents (see {@link stripAccents}), in lower case (`Épée` → `epee`); special letters and
 * apostrophes are kept. The folding of the registry and asset searches (spec §4.3, §4.5, §4.6).
 */
export function foldAccentsAndCase(text: string): string {
  return stripAccents(text).toLowerCase();
}

/**
 * Comparison form of `text`: lower case, accents and compatibility forms folded, special letters
 * spelled out (ß → ss, æ → ae, þ → th, …), apostrophes removed (`Engineer's` → `engineers`).
 * White space and other punctuation are kept. Pure printable ASCII takes a fast path with the same result.
 * Lower case comes last as well: some compatibility forms open into capitals (`™` → `TM`, `𝒜` → `A`).
 */
export function foldForMatch(text: string): string {
  const lower = PRINTABLE_ASCII_RE.test(text)
    ? text.toLowerCase()
    : text
        .toLowerCase()
        .normalize('NFKD')
        .replace(MARKS_RE, '')
        .toLowerCase()
        .replace(SPECIAL_RE, (c) => SPECIAL_LETTERS[c] ?? c);
  return lower.replace(APOSTROPHES_RE, '');
}

/** True when `text` is printable ASCII only (callers may pick faster ASCII-only patterns). */
export function isPrintableAscii(text: string): boolean {
  return PRINTABLE_ASCII_RE.test(text);
}
