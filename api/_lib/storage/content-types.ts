/**
 * What binary storage accepts (spec 4.7, 4.9): the allow-list of content types per kind, and the check
 * of a file's bytes against it. The content type is read from the bytes (`file-type`, magic numbers),
 * never from the client; the file name's extension must be one the detected type is known by, so an
 * HTML page named `.png` (no magic number: not detected) and a PNG named `.jpg` are both refused.
 *
 * | kind | detected type → accepted extensions |
 * |---|---|
 * | image | PNG `.png`; JPEG `.jpg` `.jpeg`; GIF `.gif`; WebP `.webp`; AVIF `.avif`; KTX `.ktx` |
 * | model | glTF binary `.glb`; FBX `.fbx` |
 * | audio | MP3 `.mp3`; Ogg `.ogg` `.oga`; Opus `.opus`; WAV `.wav`; FLAC `.flac`; M4A `.m4a` |
 * | video | MP4 `.mp4`; WebM `.webm` |
 *
 * Text formats (SVG, glTF JSON, OBJ) have no magic number and are refused: a sniffed type cannot tell them
 * from an HTML page, and SVG can carry scripts.
 */
import type { Readable } from 'node:stream';
import { fileTypeFromFile, fileTypeFromStream } from 'file-type';

/** Kinds of binaries. */
export const KINDS = ['image', 'model', 'audio', 'video'] as const;
/** One kind. */
export type Kind = (typeof KINDS)[number];

/** One accepted type: file-type's detected extension, the content type stored, the file extensions accepted. */
interface AcceptedType {
  readonly kind: Kind;
  readonly contentType: string;
  readonly extensions: readonly string[];
}

/** The allow-list, by file-type's detected `ext` (see the module table). */
export const ACCEPTED: Readonly<Record<string, AcceptedType>> = Object.freeze({
  png: { kind: 'image', contentType: 'image/png', extensions: ['png'] },
  jpg: { kind: 'image', contentType: 'image/jpeg', extensions: ['jpg', 'jpeg'] },
  gif: { kind: 'image', contentType: 'image/gif', extensions: ['gif'] },
  webp: { kind: 'image', contentType: 'image/webp', extensions: ['webp'] },
  avif: { kind: 'image', contentType: 'image/avif', extensions: ['avif'] },
  ktx: { kind: 'image', contentType: 'image/ktx', extensions: ['ktx'] },
  glb: { kind: 'model', contentType: 'model/gltf-binary', extensions: ['glb'] },
  fbx: { kind: 'model', contentType: 'application/x.autodesk.fbx', extensions: ['fbx'] },
  mp3: { kind: 'audio', contentType: 'audio/mpeg', extensions: ['mp3'] },
  ogg: { kind: 'audio', contentType: 'audio/ogg', extensions: ['ogg', 'oga'] },
  oga: { kind: 'audio', contentType: 'audio/ogg', extensions: ['ogg', 'oga'] },
  opus: { kind: 'audio', contentType: 'audio/ogg', extensions: ['opus', 'ogg'] },
  wav: { kind: 'audio', contentType: 'audio/wav', extensions: ['wav'] },
  flac: { kind: 'audio', contentType: 'audio/flac', extensions: ['flac'] },
  m4a: { kind: 'audio', contentType: 'audio/mp4', extensions: ['m4a'] },
  mp4: { kind: 'video', contentType: 'video/mp4', extensions: ['mp4'] },
  webm: { kind: 'video', contentType: 'video/webm', extensions: ['webm'] },
});

/** Why a file was refused (a per-file `code`). */
export type TypeRefusal = 'UNKNOWN_TYPE' | 'TYPE_NOT_ALLOWED' | 'EXTENSION_MISMATCH';

/** Result of {@link checkContent}. */
export type ContentCheck =
  | { readonly ok: true; readonly kind: Kind; readonly contentType: string }
  | { readonly ok: false; readonly code: TypeRefusal; readonly reason: string };

/** Lower-case extension of the last segment of `name` (after its last `.`), or '' when it has none. */
export function extensionOf(name: string): string {
  const last = name.slice(name.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  return dot <= 0 ? '' : last.slice(dot + 1).toLowerCase();
}

/**
 * Check a file's detected type against the allow-list and its name.
 * @param detected file-type's result for the bytes (undefined when no magic number matched).
 * @param name the file name or key whose extension must fit the type.
 */
export function judgeContent(detected: { readonly ext: string } | undefined, name: string): ContentCheck {
  if (!detected)
    return { ok: false, code: 'UNKNOWN_TYPE', reason: 'The bytes are of no known binary type (text, HTML and SVG are refused).' };
  const accepted = ACCEPTED[detected.ext];
  if (!accepted)
    return {
      ok: false,
      code: 'TYPE_NOT_ALLOWED',
      reason: `The bytes are ${detected.ext.toUpperCase()}, which storage does not take; it takes images, models, audio and video.`,
    };
  const ext = extensionOf(name);
  if (!accepted.extensions.includes(ext)) {
    return {
      ok: false,
      code: 'EXTENSION_MISMATCH',
      reason: `The bytes are ${detected.ext.toUpperCase()} but the name ends in "${ext ? '.' + ext : '(no extension)'}"; name it ${accepted.extensions.map((e) => '.' + e).join(' or ')}.`,
    };
  }
  return { ok: true, kind: accepted.kind, contentType: accepted.contentType };
}

/** Sniff the staged file at `path` and {@link judgeContent} it under `name`. */
export async function checkContent(path: string, name: string): Promise<ContentCheck> {
  return judgeContent(await fileTypeFromFile(path), name);
}

/**
 * Sniff a stored object's bytes from `body` and {@link judgeContent} them under `name`. Reads only the
 * bytes the detection needs, then destroys the stream (the rest is never downloaded).
 * @throws whatever reading the stream throws
 */
export async function checkStoredContent(body: NodeJS.ReadableStream, name: string): Promise<ContentCheck> {
  try {
    return judgeContent(await fileTypeFromStream(body as Readable), name);
  } finally {
    (body as Readable).destroy();
  }
}

/**
 * The content type a key's extension stands for under the allow-list (`application/octet-stream` for any
 * other): what a listing reports for an object when the storage does not list content types (S3).
 */
export function contentTypeOfKey(key: string): string {
  const ext = extensionOf(key);
  for (const t of Object.values(ACCEPTED)) if (t.extensions.includes(ext)) return t.contentType;
  return 'application/octet-stream';
}
