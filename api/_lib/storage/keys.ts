/**
 * The one key validator of binary storage (spec 4.7), shared by both adapters, the upload routes, the
 * archive reader and presigned uploads, so that a key means the same object everywhere and no key can
 * leave its folder.
 *
 * A key is refused when it:
 * - is empty, or longer than {@link MAX_KEY_BYTES} bytes of UTF-8;
 * - is not well-formed UTF-16 (a lone surrogate has no UTF-8 form);
 * - starts with `/`, contains `\`, `//`, or ends with `/` (every segment is a non-empty name);
 * - has a `.` or `..` segment (a local file system would fold `a/./b` into `a/b` and `a/../b` out of `a`);
 * - has a segment longer than {@link MAX_SEGMENT_BYTES} bytes (a file name limit of common file systems,
 *   applied to both adapters so that they accept the same keys);
 * - contains a control character (U+0000-U+001F, U+007F-U+009F);
 * - is not in Unicode NFC: every route hands keys through {@link normalizeKey} first, so `é` typed as one
 *   code point or as `e` + U+0301 names the same object; an adapter called with another form refuses it;
 * - contains look-alike path punctuation ({@link lookAlikePunctuation}): a character that is not `.`, `/`
 *   or `\` but whose compatibility form (NFKC) holds one (fullwidth `．` `／` `＼`, `․`, `﹒`, `﹨`, `…`), or a
 *   slash look-alike without such a form (`∕` division slash, `⁄` fraction slash, `∖` set minus, `⧵` `⧸` `⧹`).
 *   A reader would take `era1／..／secret` for a path that leaves its folder;
 * - is, as a whole, one of the storage route names ({@link RESERVED_KEYS}): `DELETE /api/storage/list`
 *   names the listing route, so such an object could never be deleted through the API.
 *
 * Spaces and any other printable Unicode are allowed; URLs percent-encode them ({@link encodeKeyPath}).
 */

/** Longest key, in bytes of UTF-8 (S3's limit). */
export const MAX_KEY_BYTES = 1024;
/** Longest segment between two `/`, in bytes of UTF-8. */
export const MAX_SEGMENT_BYTES = 255;
/** Whole keys that name storage routes. */
export const RESERVED_KEYS: readonly string[] = Object.freeze([
  'list',
  'upload',
  'upload-multi',
  'upload-zip',
  'presign',
  'register',
  'index',
]);

// C0 controls, DEL and C1 controls
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
// slash and backslash look-alikes that have no compatibility decomposition
const SLASH_LOOK_ALIKES = /[\u2044\u2215\u2216\u29f5\u29f8\u29f9]/u;
// what the compatibility form of a look-alike holds
const PATH_PUNCTUATION = /[./\\]/;

/**
 * The first character of `key` that passes for path punctuation without being it (see the module
 * header), or `undefined`. Pure.
 */
export function lookAlikePunctuation(key: string): string | undefined {
  for (const ch of key) {
    if (ch === '.' || ch === '/' || ch === '\\') continue;
    if (SLASH_LOOK_ALIKES.test(ch) || PATH_PUNCTUATION.test(ch.normalize('NFKC'))) return ch;
  }
  return undefined;
}

/** `key` in Unicode NFC, the form every key is stored and compared in. Pure; a lone surrogate passes through (then refused by {@link keyProblem}). */
export function normalizeKey(key: string): string {
  return key.normalize('NFC');
}
/** Bidirectional overrides and isolates (the stored-text rule's, `api/_lib/text/stored.ts`): `icon\u202Egnp.png` shows as `icongpn.png`. */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;
// in a `u` regex a surrogate pair is one code point, so only a lone surrogate is in category Cs
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why `key` is not a storage key, in one sentence for a problem's `errors[]`, or `undefined` when it is one.
 * Pure; never throws.
 */
export function keyProblem(key: string): string | undefined {
  if (key === '') return 'The key is empty.';
  if (LONE_SURROGATE.test(key)) return 'The key holds a lone UTF-16 surrogate, which has no UTF-8 form.';
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return `The key is longer than ${MAX_KEY_BYTES} bytes of UTF-8.`;
  if (CONTROL.test(key)) return 'The key holds a control character.';
  const bidi = BIDI_CONTROL.exec(key);
  if (bidi)
    return `The key holds ${codePoint(bidi[0]).split(' ')[0]}, a bidirectional override or isolate, which makes a name read in another order than it is stored.`;
  if (key !== key.normalize('NFC')) return 'The key is not in Unicode NFC.';
  const lookAlike = lookAlikePunctuation(key);
  if (lookAlike !== undefined)
    return `The key holds ${codePoint(lookAlike)}, which passes for path punctuation; use "/" between folders and "." only in names.`;
  if (key.includes('\\')) return 'The key holds a backslash; separate folders with "/".';
  if (key.startsWith('/')) return 'The key starts with "/"; keys are relative.';
  for (const segment of key.split('/')) {
    if (segment === '') return 'The key has an empty folder name ("//" or a trailing "/").';
    if (segment === '.' || segment === '..') return `The key has a "${segment}" segment.`;
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES)
      return `A folder or file name in the key is longer than ${MAX_SEGMENT_BYTES} bytes of UTF-8.`;
  }
  if (RESERVED_KEYS.includes(key)) return `"${key}" names a storage route; put the object in a folder.`;
  return undefined;
}

/** `U+XXXX` and the character itself, e.g. `U+FF0F (／)`. */
function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} (${ch})`;
}

/**
 * The key of a file named `name` in `folder` (`folder/name`, or `name` without a folder). Leading and
 * trailing `/` of the folder are dropped, so `"era1/"` and `"era1"` name the same folder.
 */
export function joinKey(folder: string | undefined, name: string): string {
  const f = (folder ?? '').replace(/^\/+|\/+$/g, '');
  return f === '' ? name : `${f}/${name}`;
}

/** A key as a URL path: each segment percent-encoded, the `/` between them kept. */
export function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}
