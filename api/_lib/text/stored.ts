/**
 * The one rule for free text the service stores (notes, reasons, display names, character names,
 * usernames, loadout names; spec 2.8, 4.8), so that what is stored reads back exactly as it was accepted
 * in every answer, on every store, and a hash over it stays verifiable (docs/architecture.md, "Stored
 * text"). Text is first normalised to Unicode NFC (the stored form; an answer shows it), then refused when
 * it holds:
 * - a C0 control character (U+0000-U+001F) or DEL (U+007F): single-line text allows none; multi-line
 *   text (notes and reasons) allows the line feed (U+000A) and the tab (U+0009), never a carriage return;
 * - a C1 control character (U+0080-U+009F);
 * - a lone surrogate (a UTF-16 half that is not part of a pair: not a character at all);
 * - a bidirectional override or isolate (U+202A-U+202E, U+2066-U+2069), which make text read in another
 *   order than it is stored;
 * - more code points than the field allows, counted after normalisation.
 */

/** Which whitespace controls a field allows: `line` none, `lines` the line feed and the tab. */
export type TextKind = 'line' | 'lines';

const LINE_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/u;
const LINES_FORBIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/u;

/** What `text` (as sent) breaks of the rule for `kind` and `maxLength` code points, as a sentence; undefined when it passes. */
export function storedTextProblem(text: string, kind: TextKind, maxLength: number): string | undefined {
  if (!text.isWellFormed()) return 'Holds a lone surrogate (half of a UTF-16 pair), which is not a character.';
  const nfc = text.normalize('NFC');
  const bad = (kind === 'line' ? LINE_FORBIDDEN : LINES_FORBIDDEN).exec(nfc);
  if (bad) {
    const code = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    const what = /[\u202A-\u202E\u2066-\u2069]/u.test(bad[0]) ? 'a bidirectional override or isolate' : 'a control character';
    const allowed = kind === 'lines' ? ' (line feeds and tabs are allowed)' : '';
    return `Holds ${what} (${code}) at character ${[...nfc.slice(0, bad.index)].length + 1}${allowed}.`;
  }
  const length = [...nfc].length;
  if (length > maxLength) return `Has ${length} characters once normalised (NFC); at most ${maxLength} are kept.`;
  return undefined;
}

/**
 * The stored form of text that passes the rule: NFC.
 * @throws Error when `text` breaks the rule (callers check {@link storedTextProblem} first)
 */
export function storedText(text: string, kind: TextKind, maxLength: number): string {
  const problem = storedTextProblem(text, kind, maxLength);
  if (problem) throw new Error(problem);
  return text.normalize('NFC');
}

/**
 * Text from outside the service that a person cannot correct here (a platform's username), made to pass
 * the rule: lone surrogates become U+FFFD, forbidden characters are removed, the result is NFC and cut at
 * `maxLength` code points; `fallback` when nothing printable is left.
 */
export function cleanStoredText(text: string, kind: TextKind, maxLength: number, fallback: string): string {
  const forbidden = new RegExp((kind === 'line' ? LINE_FORBIDDEN : LINES_FORBIDDEN).source, 'gu');
  const kept = [...text.toWellFormed().normalize('NFC').replace(forbidden, '')].slice(0, maxLength).join('');
  return kept.trim() === '' ? fallback : kept;
}
