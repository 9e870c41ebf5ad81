/**
 * Storage routes on the `s3` storage (spec 4.7) against a real S3-protocol server (s3rver) on 127.0.0.1:
 * an upload lands in the bucket with its sniffed content type, a listing pages it, a delete answers 204
 * twice, and a presigned PUT (the way past Vercel's 4.5 MB body limit) stores exactly the bytes, type and
 * size it was signed for and nothing else; registration sniffs those bytes and removes an object that lies about its type; keys are taken in NFC.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServiceConfig, useServiceConfig } from '../../api/_lib/config.js';
import { storage } from '../../api/_lib/storage/store.js';
import * as entry from '../../api/storage.js';
import { html, mp3, png } from '../helpers/media.js';
import { startS3, type TestS3 } from '../helpers/s3.js';

const PASSWORD = 'admin-password-0123456789';
const admin = { 'X-Admin-Password': PASSWORD };
let s3: TestS3;
let dataDir: string;

beforeAll(async () => {
  s3 = await startS3();
  dataDir = mkdtempSync(join(tmpdir(), 'storage-s3-api-'));
  useServiceConfig(loadServiceConfig({ ...s3.env, STORE_DRIVER: 'sqlite', DATA_DIR: dataDir, ADMIN_PASSWORD: PASSWORD }));
}, 60_000);
afterAll(async () => {
  useServiceConfig(undefined);
  await s3?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
}

describe('storage routes on s3', () => {
  it('uploads, lists and deletes through the bucket', async () => {
    const bytes = png(3, 3);
    const f = new FormData();
    f.append('folder', 'era1/icons');
    f.append('file', new Blob([new Uint8Array(bytes)]), 'Épée.png');
    const up = await entry.POST(new Request('http://localhost/api/storage/upload', { method: 'POST', headers: admin, body: f }));
    const body = await json(up);
    expect(up.status).toBe(201);
    expect(body).toMatchObject({
      key: 'era1/icons/Épée.png',
      contentType: 'image/png',
      size: bytes.length,
      url: `${s3.env.S3_PUBLIC_URL}/era1/icons/%C3%89p%C3%A9e.png`,
    });
    expect(body.etag).toBe(`"${createHash('md5').update(bytes).digest('hex')}"`);
    const head = await (await storage()).head('era1/icons/Épée.png');
    expect(head).toMatchObject({ contentType: 'image/png', size: bytes.length });

    const list = await json(await entry.GET(new Request('http://localhost/api/storage/list?prefix=era1/', { headers: admin })));
    expect(list).toMatchObject({
      items: [{ key: 'era1/icons/Épée.png', contentType: 'image/png', size: bytes.length }],
      cursor: null,
      hasMore: false,
    });

    const del = () =>
      entry.DELETE(new Request('http://localhost/api/storage/era1/icons/%C3%89p%C3%A9e.png', { method: 'DELETE', headers: admin }));
    expect((await del()).status).toBe(204);
    expect((await del()).status).toBe(204);
    expect(await (await storage()).head('era1/icons/Épée.png')).toBeUndefined();
  });

  it('presigns a PUT that stores exactly the signed type and size', async () => {
    const bytes = mp3(5000);
    const res = await entry.POST(
      new Request('http://localhost/api/storage/presign', {
        method: 'POST',
        headers: { ...admin, 'Content-Type': 'application/json' },
        body: JSON.stringify({ key: 'era1/audio/theme.mp3', contentType: 'audio/mpeg', size: bytes.length }),
      }),
    );
    const signed = (await json(res)) as {
      url: string;
      method: string;
      headers: Record<string, string>;
      expiresAt: string;
      publicUrl: string;
    };
    expect(res.status).toBe(200);
    expect(signed.method).toBe('PUT');
    expect(signed.headers).toEqual({ 'Content-Type': 'audio/mpeg', 'Content-Length': String(bytes.length) });
    expect(Date.parse(signed.expiresAt) - Date.now()).toBeGreaterThan(250_000);
    expect(signed.url).toMatch(/X-Amz-Signature=/);
    expect(signed.url).not.toContain(s3.secretAccessKey + '&');

    // type and size are signed headers, so S3 refuses a PUT with another (s3rver does not verify query signatures)
    expect(new URL(signed.url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect(new URL(signed.url).searchParams.get('X-Amz-Expires')).toBe('300');
    expect(await (await storage()).head('era1/audio/theme.mp3')).toBeUndefined();

    const put = await fetch(signed.url, { method: 'PUT', headers: signed.headers, body: new Uint8Array(bytes) });
    expect(put.status).toBe(200);
    expect(await (await storage()).head('era1/audio/theme.mp3')).toMatchObject({ size: bytes.length, contentType: 'audio/mpeg' });
    expect(signed.publicUrl).toBe(`${s3.env.S3_PUBLIC_URL}/era1/audio/theme.mp3`);
  });

  /** Presign `key` for `bytes` sent as `contentType`, and PUT them to the bucket. */
  async function presignedPut(key: string, bytes: Buffer, contentType: string): Promise<void> {
    const res = await entry.POST(
      new Request('http://localhost/api/storage/presign', {
        method: 'POST',
        headers: { ...admin, 'Content-Type': 'application/json' },
        body: JSON.stringify({ key, contentType, size: bytes.length }),
      }),
    );
    expect(res.status).toBe(200);
    const signed = (await json(res)) as { url: string; headers: Record<string, string> };
    expect((await fetch(signed.url, { method: 'PUT', headers: signed.headers, body: new Uint8Array(bytes) })).status).toBe(200);
  }
  const register = async (entries: { key: string; purpose: string }[]) =>
    json(
      await entry.POST(
        new Request('http://localhost/api/storage/register', {
          method: 'POST',
          headers: { ...admin, 'Content-Type': 'application/json' },
          body: JSON.stringify({ entries }),
        }),
      ),
    );

  it('sniffs presigned bytes at registration: a mismatch is refused and removed, from the bucket and the index', async () => {
    await presignedPut('era1/audio/ok.mp3', mp3(4000), 'audio/mpeg');
    await presignedPut('era1/audio/page.mp3', html(), 'audio/mpeg');
    await presignedPut('era1/audio/picture.mp3', png(), 'audio/mpeg');
    const r = (await register([
      { key: 'era1/audio/ok.mp3', purpose: 'play' },
      { key: 'era1/audio/page.mp3', purpose: 'play' },
      { key: 'era1/audio/picture.mp3', purpose: 'play' },
    ])) as { registered: number; results: { key: string; status: string; code?: string; reason?: string; contentType?: string }[] };
    expect(r.registered).toBe(1);
    expect(r.results.map((x) => [x.key, x.status, x.code ?? x.contentType])).toEqual([
      ['era1/audio/ok.mp3', 'created', 'audio/mpeg'],
      ['era1/audio/page.mp3', 'refused', 'UNKNOWN_TYPE'],
      ['era1/audio/picture.mp3', 'refused', 'EXTENSION_MISMATCH'],
    ]);
    expect(r.results[1]!.reason).toMatch(/The object was removed\.$/);
    const adapter = await storage();
    expect(await adapter.head('era1/audio/page.mp3')).toBeUndefined();
    expect(await adapter.head('era1/audio/picture.mp3')).toBeUndefined();
    expect(await adapter.head('era1/audio/ok.mp3')).toBeDefined();

    // a registered object overwritten through a later presigned PUT leaves the index with it
    await presignedPut('era1/audio/ok.mp3', html(), 'audio/mpeg');
    const again = (await register([{ key: 'era1/audio/ok.mp3', purpose: 'play' }])) as { results: { code?: string }[] };
    expect(again.results[0]!.code).toBe('UNKNOWN_TYPE');
    const index = await entry.GET(new Request('http://localhost/api/storage/index?prefix=era1/audio/', { headers: admin }));
    expect(((await json(index)) as { items: unknown[] }).items).toEqual([]);
  });

  it('takes keys in NFC: a key sent decomposed is presigned, stored and registered composed', async () => {
    await presignedPut('era1/icons/Cafe\u0301.png', png(), 'image/png');
    expect(await (await storage()).head('era1/icons/Caf\u00e9.png')).toBeDefined();
    const r = (await register([{ key: 'era1/icons/Cafe\u0301.png', purpose: 'author' }])) as { results: { key: string; status: string }[] };
    expect(r.results).toMatchObject([{ key: 'era1/icons/Caf\u00e9.png', status: 'created' }]);
  });
});
