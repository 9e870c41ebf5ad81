/**
 * Streamed `multipart/form-data` for the upload routes (spec 4.7), read with `busboy`: each file part is
 * streamed into the request's staging area (`staging.ts`), never buffered whole, and every limit answers
 * 413 instead of truncating silently:
 *
 * | limit | value | answer |
 * |---|---|---|
 * | bytes of one file | per route (`STORAGE_MAX_FILE_BYTES`, default 100 MiB) | 413 PAYLOAD_TOO_LARGE naming the file |
 * | files in one request | per route (1, 50) | 413 |
 * | non-file fields | {@link FORM_LIMITS}: 10 | 413 |
 * | bytes of one field value | {@link FORM_LIMITS}: 1,024 | 413 |
 *
 * Other refusals: a body that is not `multipart/form-data` with a boundary is 415; a file in a field the
 * route does not read, a file without a name, or a malformed body is 400. When the client goes away mid-
 * body, the read fails and nothing is stored (the caller disposes the staging area). Vercel refuses bodies
 * over 4.5 MB before the function runs; larger files go through presigned uploads.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import { ServiceError } from '../errors.js';
import { fileTooLarge, type StagingArea } from './staging.js';
import type { StagedFile } from './types.js';

/** Limits of one multipart request. */
export interface MultipartLimits {
  /** Largest file, bytes. */
  readonly maxFileBytes: number;
  /** Most files. */
  readonly maxFiles: number;
  /** Most non-file fields. */
  readonly maxFields: number;
  /** Largest field value, bytes. */
  readonly maxFieldBytes: number;
}

/** The field limits every upload route uses (routes set the file limits). */
export const FORM_LIMITS = Object.freeze({ maxFields: 10, maxFieldBytes: 1024 });

/** One received file: its form field, the file name the client gave (its last path segment), its staged bytes. */
export interface ReceivedFile {
  readonly field: string;
  readonly name: string;
  readonly staged: StagedFile;
}

/** What a multipart request carried, files in the order they came. */
export interface Received {
  readonly files: readonly ReceivedFile[];
  readonly fields: Readonly<Record<string, string>>;
}

/**
 * Read a multipart request, staging its files.
 * @param fileFields the form fields that may carry files; a file in any other field is refused.
 * @throws ServiceError UNSUPPORTED_MEDIA_TYPE, PAYLOAD_TOO_LARGE, INVALID_BODY (see the module table).
 */
export async function receiveMultipart(
  request: Request,
  staging: StagingArea,
  fileFields: readonly string[],
  limits: MultipartLimits,
): Promise<Received> {
  const contentType = request.headers.get('content-type') ?? '';
  const notMultipart = (cause?: unknown) =>
    new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'Send the upload as multipart/form-data (a form with a boundary).', { cause });
  // busboy also reads url-encoded forms, which carry no files
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) throw notMultipart();
  if (!request.body) throw new ServiceError('INVALID_BODY', 'The request has no body; send the file in a multipart form.');
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: { 'content-type': contentType },
      // browsers and fetch send file names as raw UTF-8 in the part headers (busboy's default is latin1)
      defParamCharset: 'utf8',
      limits: {
        // one byte more than allowed, so that the staging counter sees the excess and refuses it
        fileSize: limits.maxFileBytes + 1,
        files: limits.maxFiles,
        fields: limits.maxFields,
        // as for files: one byte more, so that a value of exactly the limit is whole and one more is refused
        fieldSize: limits.maxFieldBytes + 1,
      },
    });
  } catch (e) {
    // no boundary
    throw notMultipart(e);
  }
  const source = Readable.fromWeb(request.body as unknown as NodeWebReadableStream<Uint8Array>);
  const fields: Record<string, string> = {};
  // one staging write per file, in the order the parts came
  const pending: Promise<ReceivedFile>[] = [];

  const done = new Promise<void>((resolve, reject) => {
    // the first failure wins: the promise settles once, and stopping the read twice changes nothing
    const fail = (e: Error) => {
      source.unpipe(bb);
      source.destroy();
      // ends the file part being read, so that its staging write settles
      bb.destroy(new Error('multipart read abandoned'));
      reject(e);
    };
    bb.on('file', (field, stream, info) => {
      // a part's stream errors when the read is abandoned; the staging write (or nobody) is waiting on it
      stream.on('error', () => undefined);
      const name = (info.filename ?? '').split(/[\\/]/).pop()!;
      if (!fileFields.includes(field)) {
        stream.resume();
        fail(
          new ServiceError(
            'INVALID_BODY',
            `A file came in field "${field}"; this route reads files from ${fileFields.map((f) => `"${f}"`).join(', ')}.`,
            { errors: [{ name: field, message: 'Unexpected file field.' }] },
          ),
        );
        return;
      }
      if (name === '') {
        stream.resume();
        fail(
          new ServiceError('INVALID_BODY', 'A file came without a file name; give every file its name.', {
            errors: [{ name: field, message: 'The file has no name.' }],
          }),
        );
        return;
      }
      const write = staging.stage(stream, limits.maxFileBytes, `"${name}"`).then((staged) => ({ field, name, staged }));
      write.catch((e: unknown) => {
        stream.resume();
        fail(e as Error);
      });
      pending.push(write);
    });
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated)
        fail(new ServiceError('PAYLOAD_TOO_LARGE', `The field "${name.slice(0, 100)}" is longer than ${limits.maxFieldBytes} bytes.`));
      else fields[name] = value;
    });
    bb.on('filesLimit', () =>
      fail(
        new ServiceError(
          'PAYLOAD_TOO_LARGE',
          `The request holds more than ${limits.maxFiles} file${limits.maxFiles === 1 ? '' : 's'}; nothing was stored.`,
        ),
      ),
    );
    bb.on('fieldsLimit', () =>
      fail(new ServiceError('PAYLOAD_TOO_LARGE', `The request holds more than ${limits.maxFields} fields; nothing was stored.`)),
    );
    bb.on('error', (e: Error) =>
      fail(new ServiceError('INVALID_BODY', 'The multipart body is malformed; nothing was stored.', { cause: e })),
    );
    bb.on('close', resolve);
    source.on('error', (e) =>
      fail(new ServiceError('INVALID_BODY', 'The request body ended before it was complete; nothing was stored.', { cause: e })),
    );
    source.pipe(bb);
  });
  try {
    await done;
    return { files: await Promise.all(pending), fields };
  } finally {
    // every staging write has settled before the caller disposes of the area
    await Promise.allSettled(pending);
  }
}

export { fileTooLarge };
