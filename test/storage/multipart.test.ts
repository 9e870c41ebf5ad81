/**
 * Streamed multipart reading (`api/_lib/storage/multipart.ts`, spec 4.7) called directly with small
 * limits, each pinned at its edge with the answer it gives: file size, file count, field count, field
 * size (413, never a silent truncation); the content type (415); files in
 * fields the route does not read, files without names, malformed and truncated bodies, a client gone
 * mid-body (400). What a request carried comes back in order, with file names cut to their last segment.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../api/_lib/errors.js';
import { FORM_LIMITS, receiveMultipart, type MultipartLimits } from '../../api/_lib/storage/multipart.js';
import { openStaging, type StagingArea } from '../../api/_lib/storage/staging.js';

let staging: StagingArea;
beforeAll(async () => {
  staging = await openStaging();
});
afterAll(async () => {
  await staging.dispose();
});

const LIMITS: MultipartLimits = { maxFileBytes: 100, maxFiles: 2, maxFields: 2, maxFieldBytes: 10 };
const B = 'xyBOUNDARYyx';

type Part = { field: string; value: string } | { field: string; filename: string; data: Buffer | string };
function body(parts: readonly Part[]): string | Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = 'filename' in p ? `form-data; name="${p.field}"; filename="${p.filename}"` : `form-data; name="${p.field}"`;
    chunks.push(
      Buffer.from(
        `--${B}\r\nContent-Disposition: ${disposition}\r\n${'filename' in p ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n`,
      ),
    );
    chunks.push(Buffer.from('filename' in p ? p.data : p.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${B}--\r\n`));
  return Buffer.concat(chunks);
}

const request = (payload: string | Buffer | ReadableStream<Uint8Array> | null, type = `multipart/form-data; boundary=${B}`) =>
  new Request('http://localhost/upload', {
    method: 'POST',
    headers: type ? { 'Content-Type': type } : {},
    ...(payload === null ? {} : { body: payload, duplex: 'half' }),
  } as RequestInit);

const receive = (req: Request, fields: readonly string[] = ['file'], limits: MultipartLimits = LIMITS) =>
  receiveMultipart(req, staging, fields, limits);

async function refusal(req: Request, fields?: readonly string[], limits?: MultipartLimits): Promise<ServiceError> {
  try {
    await receive(req, fields, limits);
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error('the body was accepted');
}

describe('receiveMultipart: what a request carried', () => {
  it('returns the files in the order they came, named by their last segment, and the fields', async () => {
    const got = await receive(
      request(
        body([
          { field: 'folder', value: 'era1' },
          { field: 'file', filename: 'dir/sub/a.png', data: 'AAAA' },
          { field: 'file', filename: 'C:\\art\\b.png', data: Buffer.alloc(100, 1) },
          { field: 'note', value: 'x' },
        ]),
      ),
    );
    expect(got.fields).toEqual({ folder: 'era1', note: 'x' });
    expect(got.files.map((f) => [f.field, f.name, f.staged.size])).toEqual([
      ['file', 'a.png', 4],
      ['file', 'b.png', 100],
    ]);
    expect(readFileSync(got.files[0]!.staged.path, 'utf8')).toBe('AAAA');
  });

  it('reads file names as UTF-8, takes any casing of the type, and exactly the field limits', async () => {
    const got = await receive(
      request(
        body([
          { field: 'a', value: '0123456789' },
          { field: 'b', value: '' },
          { field: 'file', filename: 'Épée.png', data: 'x' },
        ]),
        `Multipart/Form-Data; boundary=${B}`,
      ),
    );
    expect(got.files[0]!.name).toBe('Épée.png');
    expect(got.fields).toEqual({ a: '0123456789', b: '' });
    expect(FORM_LIMITS).toEqual({ maxFields: 10, maxFieldBytes: 1024 });
  });
});

describe('receiveMultipart: limits answer 413, never a truncation', () => {
  it('a file one byte over its limit, naming it', async () => {
    const err = await refusal(request(body([{ field: 'file', filename: 'big.png', data: Buffer.alloc(101) }])));
    expect(err.code).toBe('PAYLOAD_TOO_LARGE');
    expect(err.message).toBe('"big.png" is larger than 100 bytes, the most one file may hold; nothing was stored.');
  });

  it('one file too many, in the singular and the plural', async () => {
    const three = body([1, 2, 3].map((i) => ({ field: 'file', filename: `${i}.png`, data: 'x' })));
    expect((await refusal(request(three))).message).toBe('The request holds more than 2 files; nothing was stored.');
    const two = body([1, 2].map((i) => ({ field: 'file', filename: `${i}.png`, data: 'x' })));
    const one = await refusal(request(two), ['file'], { ...LIMITS, maxFiles: 1 });
    expect(one.code).toBe('PAYLOAD_TOO_LARGE');
    expect(one.message).toBe('The request holds more than 1 file; nothing was stored.');
  });

  it('one field too many, and a field value one byte over its limit', async () => {
    const fields = await refusal(request(body([1, 2, 3].map((i) => ({ field: `f${i}`, value: 'x' })))));
    expect(fields.code).toBe('PAYLOAD_TOO_LARGE');
    expect(fields.message).toBe('The request holds more than 2 fields; nothing was stored.');
    const long = await refusal(request(body([{ field: 'folder', value: '01234567890' }])));
    expect(long.code).toBe('PAYLOAD_TOO_LARGE');
    expect(long.message).toBe('The field "folder" is longer than 10 bytes.');
    // the field's name is echoed cut to 100 characters
    const named = await refusal(request(body([{ field: 'n'.repeat(150), value: '01234567890' }])));
    expect(named.message).toBe(`The field "${'n'.repeat(100)}" is longer than 10 bytes.`);
  });
});

describe('receiveMultipart: other refusals', () => {
  it('a body that is not multipart/form-data with a boundary is 415', async () => {
    for (const type of ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain; boundary=x', '']) {
      const err = await refusal(request('a=1', type));
      expect(err.code, type).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(err.message, type).toBe('Send the upload as multipart/form-data (a form with a boundary).');
    }
    // without a boundary, the parser's own complaint is kept as the cause (for the server log)
    const noBoundary = await refusal(request('a=1', 'multipart/form-data'));
    expect((noBoundary.cause as Error).message).toMatch(/Boundary not found/);
  });

  it('no body at all is a 400', async () => {
    const err = await refusal(request(null));
    expect(err).toMatchObject({ code: 'INVALID_BODY', message: 'The request has no body; send the file in a multipart form.' });
  });

  it('a file in a field the route does not read, naming the field and the ones it reads', async () => {
    const err = await refusal(request(body([{ field: 'upload', filename: 'a.png', data: 'x' }])), ['file', 'files']);
    expect(err.code).toBe('INVALID_BODY');
    expect(err.message).toBe('A file came in field "upload"; this route reads files from "file", "files".');
    expect(err.errors).toEqual([{ name: 'upload', message: 'Unexpected file field.' }]);
  });

  it('a file without a name', async () => {
    const err = await refusal(request(body([{ field: 'file', filename: '', data: 'x' }])));
    expect(err).toMatchObject({
      code: 'INVALID_BODY',
      message: 'A file came without a file name; give every file its name.',
      errors: [{ name: 'file', message: 'The file has no name.' }],
    });
  });

  it('a body cut short, and a client that goes away', async () => {
    const cut = (body([{ field: 'file', filename: 'a.png', data: 'x'.repeat(50) }]) as Buffer).subarray(0, 120);
    const err = await refusal(request(cut));
    expect(err).toMatchObject({ code: 'INVALID_BODY', message: 'The multipart body is malformed; nothing was stored.' });
    expect((err.cause as Error).message).toMatch(/Unexpected end of form/);
    const gone = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array((body([{ field: 'file', filename: 'a.png', data: 'x'.repeat(50) }]) as Buffer).subarray(0, 120)));
        setTimeout(() => controller.error(new Error('reset')), 10);
      },
    });
    const e2 = await refusal(request(gone));
    expect(e2).toMatchObject({ code: 'INVALID_BODY', message: 'The request body ended before it was complete; nothing was stored.' });
    expect((e2.cause as Error).message).toBe('reset');
  });
});
