/**
 * The storage key validator (`api/_lib/storage/keys.ts`, spec 4.7): one table of keys each adapter must
 * accept or refuse alike, with the reason each refusal gives; folder joining; URL paths of keys.
 */
import { describe, expect, it } from 'vitest';
import {
  encodeKeyPath,
  joinKey,
  keyProblem,
  lookAlikePunctuation,
  normalizeKey,
  MAX_KEY_BYTES,
  MAX_SEGMENT_BYTES,
  RESERVED_KEYS,
} from '../../api/_lib/storage/keys.js';
import { ACCEPTED, contentTypeOfKey, extensionOf, judgeContent, KINDS } from '../../api/_lib/storage/content-types.js';

describe('keyProblem', () => {
  it('accepts keys with folders, spaces, dots inside names and any printable Unicode', () => {
    for (const key of [
      'a.png',
      'era1/models/anvil.glb',
      'a b/c  d.png',
      'É/北/剣.png',
      'a..b/c',
      '.hidden',
      'a/.b/c',
      'x/list',
      'list.png',
      'UPLOAD',
      '😀/🎮.png',
      'a/—/b',
      'ｅｒａ/ｆｕｌｌｗｉｄｔｈ.png',
    ]) {
      expect(keyProblem(key), key).toBeUndefined();
    }
  });

  it('refuses each broken rule with its own reason', () => {
    const cases: [string, RegExp][] = [
      ['', /empty/],
      ['/a.png', /starts with "\/"/],
      ['a\\b.png', /backslash/],
      ['a//b.png', /empty folder name/],
      ['a/', /empty folder name/],
      ['..', /"\.\." segment/],
      ['../a.png', /"\.\." segment/],
      ['a/../b.png', /"\.\." segment/],
      ['a/..', /"\.\." segment/],
      ['./a.png', /"\." segment/],
      ['a/./b', /"\." segment/],
      ['a\u0000b', /control character/],
      ['a\u001fb', /control character/],
      ['a\u007fb', /control character/],
      ['icon\u202Egnp.png', /U\+202E, a bidirectional override or isolate/],
      ['era1\u2067x/a.png', /U\+2067, a bidirectional override or isolate/],
      ['a\u202Ab', /bidirectional/],
      ['a\u2069b', /bidirectional/],
      ['a\u0085b', /control character/],
      ['a\u009fb', /control character/],
      ['a\ud800b', /lone UTF-16 surrogate/],
      ['a\udc00', /lone UTF-16 surrogate/],
      ['list', /names a storage route/],
      ['presign', /names a storage route/],
      // not NFC: e + U+0301 (the routes normalise before they check)
      ['cafe\u0301.png', /not in Unicode NFC/],
      // look-alike path punctuation: with a compatibility form, and without one
      ['era1\uff0f..\uff0fsecret.png', /U\+FF0F \(／\)/],
      ['\uff0e\uff0e/a.png', /U\+FF0E \(．\)/],
      ['a\uff3cb.png', /U\+FF3C/],
      ['a\u2215b.png', /U\+2215/],
      ['a\u2044b.png', /U\+2044/],
      ['a\u2216b.png', /U\+2216/],
      ['a\u29f5b.png', /U\+29F5/],
      ['a\u29f8b.png', /U\+29F8/],
      ['a\u29f9b.png', /U\+29F9/],
      ['\u2025/a.png', /U\+2025/],
      ['a/\u2026/b', /U\+2026/],
      ['a\u2024png', /U\+2024/],
      ['a\ufe52png', /U\+FE52/],
      ['a\ufe68b', /U\+FE68/],
    ];
    for (const [key, reason] of cases) expect(keyProblem(key), JSON.stringify(key)).toMatch(reason);
    // the reasons as a client reads them
    expect(keyProblem('')).toBe('The key is empty.');
    expect(keyProblem('a\ud800')).toBe('The key holds a lone UTF-16 surrogate, which has no UTF-8 form.');
    expect(keyProblem('x'.repeat(1025))).toBe('The key is longer than 1024 bytes of UTF-8.');
    expect(keyProblem('a\u0001')).toBe('The key holds a control character.');
    expect(keyProblem('a\\b')).toBe('The key holds a backslash; separate folders with "/".');
    expect(keyProblem('/a')).toBe('The key starts with "/"; keys are relative.');
    expect(keyProblem('a//b')).toBe('The key has an empty folder name ("//" or a trailing "/").');
    expect(keyProblem('a/../b')).toBe('The key has a ".." segment.');
    expect(keyProblem('x'.repeat(256))).toBe('A folder or file name in the key is longer than 255 bytes of UTF-8.');
    expect(keyProblem('index')).toBe('"index" names a storage route; put the object in a folder.');
    expect(keyProblem('a\uff0fb.png')).toBe(
      'The key holds U+FF0F (／), which passes for path punctuation; use "/" between folders and "." only in names.',
    );
    for (const name of RESERVED_KEYS) expect(keyProblem(name), name).toMatch(/storage route/);
    // control characters just outside the refused ranges are fine
    expect(keyProblem('a\u0020b')).toBeUndefined();
    expect(keyProblem('a\u00a0b')).toBeUndefined();
  });

  it('finds look-alike punctuation anywhere in the key, and takes the real punctuation itself', () => {
    expect(lookAlikePunctuation('a.b/c\\d')).toBeUndefined();
    expect(lookAlikePunctuation('era/☃/é.png')).toBeUndefined();
    expect(lookAlikePunctuation('ok/ok/x\u2215')).toBe('\u2215');
    expect(lookAlikePunctuation('\uff0e\u2215')).toBe('\uff0e');
  });

  it('normalises keys to NFC, so both spellings of one name are one key', () => {
    expect(normalizeKey('cafe\u0301.png')).toBe('caf\u00e9.png');
    expect(normalizeKey('caf\u00e9.png')).toBe('caf\u00e9.png');
    expect(keyProblem(normalizeKey('cafe\u0301.png'))).toBeUndefined();
    // compatibility forms are not folded: fullwidth letters stay what they are
    expect(normalizeKey('ｅｒａ')).toBe('ｅｒａ');
    // a lone surrogate passes through, for keyProblem to refuse
    expect(keyProblem(normalizeKey('a\ud800'))).toMatch(/lone UTF-16 surrogate/);
  });

  it('counts bytes of UTF-8, not characters: 1,024 for the key and 255 for a segment', () => {
    const seg = (n: number) => 'x'.repeat(n);
    const key = (n: number) =>
      Array.from({ length: Math.ceil(n / 201) }, (_, i) => seg(Math.min(200, n - i * 201)))
        .join('/')
        .slice(0, n);
    expect(key(MAX_KEY_BYTES)).toHaveLength(MAX_KEY_BYTES);
    expect(keyProblem(key(MAX_KEY_BYTES))).toBeUndefined();
    expect(keyProblem(key(MAX_KEY_BYTES) + 'x')).toMatch(/longer than 1024 bytes/);
    expect(keyProblem('é'.repeat(512))).toMatch(/longer than 1024 bytes|longer than 255 bytes/);
    expect(keyProblem('é/'.repeat(341) + 'x')).toBeUndefined(); // 341 × 3 + 1 = 1,024 bytes
    expect(keyProblem('é/'.repeat(341) + 'xy')).toMatch(/longer than 1024 bytes/);
    expect(keyProblem(seg(MAX_SEGMENT_BYTES))).toBeUndefined();
    expect(keyProblem(seg(MAX_SEGMENT_BYTES + 1))).toMatch(/longer than 255 bytes/);
    expect(keyProblem(`a/${'é'.repeat(127)}x`)).toBeUndefined(); // 255 bytes
    expect(keyProblem(`a/${'é'.repeat(128)}`)).toMatch(/longer than 255 bytes/); // 256 bytes, 128 characters
  });
});

describe('joinKey and encodeKeyPath', () => {
  it("joins a folder and a name, ignoring the folder's outer slashes", () => {
    expect(joinKey('era1', 'a.png')).toBe('era1/a.png');
    expect(joinKey('/era1/icons/', 'a.png')).toBe('era1/icons/a.png');
    expect(joinKey('//', 'a.png')).toBe('a.png');
    expect(joinKey('//era1//', 'a.png')).toBe('era1/a.png');
    expect(joinKey(undefined, 'a.png')).toBe('a.png');
    expect(joinKey('', 'a.png')).toBe('a.png');
  });

  it('percent-encodes each segment and keeps the slashes', () => {
    expect(encodeKeyPath('era1/Épée de feu.png')).toBe('era1/%C3%89p%C3%A9e%20de%20feu.png');
    expect(encodeKeyPath('a?b#c/d%e.png')).toBe('a%3Fb%23c/d%25e.png');
  });
});

describe('content types', () => {
  it('reads the extension of the last segment, lower-cased', () => {
    expect(extensionOf('a/b.PNG')).toBe('png');
    expect(extensionOf('a.b/c')).toBe('');
    expect(extensionOf('.png')).toBe('');
    expect(extensionOf('a/.png')).toBe('');
    expect(extensionOf('x.tar.gz')).toBe('gz');
    expect(extensionOf('noext')).toBe('');
  });

  it('takes exactly the documented allow-list (module header and the upload operation, build/openapi/operations.ts)', () => {
    expect(KINDS).toEqual(['image', 'model', 'audio', 'video']);
    expect(ACCEPTED).toEqual({
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
  });

  it('judges a detected type against the allow-list and the name', () => {
    expect(judgeContent({ ext: 'png' }, 'a.png')).toEqual({ ok: true, kind: 'image', contentType: 'image/png' });
    expect(judgeContent({ ext: 'jpg' }, 'a.JPEG')).toEqual({ ok: true, kind: 'image', contentType: 'image/jpeg' });
    expect(judgeContent({ ext: 'glb' }, 'm.glb')).toEqual({ ok: true, kind: 'model', contentType: 'model/gltf-binary' });
    expect(judgeContent({ ext: 'opus' }, 's.ogg')).toEqual({ ok: true, kind: 'audio', contentType: 'audio/ogg' });
    expect(judgeContent({ ext: 'webm' }, 'v.webm')).toEqual({ ok: true, kind: 'video', contentType: 'video/webm' });
    expect(judgeContent(undefined, 'a.png')).toMatchObject({ ok: false, code: 'UNKNOWN_TYPE' });
    expect(judgeContent(undefined, 'a.png')).toEqual({
      ok: false,
      code: 'UNKNOWN_TYPE',
      reason: 'The bytes are of no known binary type (text, HTML and SVG are refused).',
    });
    expect(judgeContent({ ext: 'zip' }, 'a.zip')).toEqual({
      ok: false,
      code: 'TYPE_NOT_ALLOWED',
      reason: 'The bytes are ZIP, which storage does not take; it takes images, models, audio and video.',
    });
    expect(judgeContent({ ext: 'jpg' }, 'a.png')).toEqual({
      ok: false,
      code: 'EXTENSION_MISMATCH',
      reason: 'The bytes are JPG but the name ends in ".png"; name it .jpg or .jpeg.',
    });
    expect(judgeContent({ ext: 'png' }, 'noext')).toEqual({
      ok: false,
      code: 'EXTENSION_MISMATCH',
      reason: 'The bytes are PNG but the name ends in "(no extension)"; name it .png.',
    });
  });

  it("names the type a key's extension stands for", () => {
    expect(contentTypeOfKey('a/b.png')).toBe('image/png');
    expect(contentTypeOfKey('a/b.jpeg')).toBe('image/jpeg');
    expect(contentTypeOfKey('a/b.ogg')).toBe('audio/ogg');
    expect(contentTypeOfKey('a/b.m4a')).toBe('audio/mp4');
    expect(contentTypeOfKey('a/b.html')).toBe('application/octet-stream');
    expect(contentTypeOfKey('a/b')).toBe('application/octet-stream');
  });
});
