// The operator console's address state (site/admin/state.ts; docs/architecture.md, "Operator console"):
// every view is a query string of /admin/ that decodes leniently, never throws, and encodes canonically; a
// sign-in's return address is only ever a console address.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONSOLE_PATH,
  HOME,
  ITEM_STATES,
  MAX_CURSOR,
  MAX_TEXT,
  WALLET_KINDS,
  auditState,
  consoleHref,
  consoleQuery,
  isAccountKey,
  parseConsoleState,
  playerState,
  returnState,
  sectionOf,
  signInState,
  type ConsoleState,
} from '../../site/admin/state.js';

const STUDIO = 'STUDIO_7QF3K2M9X4D1H8TB';
const UUID = '5f0e2c1a-9b8d-4e7f-a6b5-c4d3e2f1a0b9';

describe('parseConsoleState', () => {
  it('opens the search for an empty query, an unknown view, or a bare q', () => {
    expect(parseConsoleState('')).toEqual(HOME);
    expect(HOME).toEqual({ view: 'search', q: '' });
    expect(parseConsoleState('?view=nope')).toEqual(HOME);
    expect(parseConsoleState('view=search&q=%20ada%20')).toEqual({ view: 'search', q: 'ada' });
    expect(parseConsoleState('?q=ada')).toEqual({ view: 'search', q: 'ada' });
    expect(parseConsoleState(`?q=${'x'.repeat(MAX_TEXT + 50)}`)).toEqual({ view: 'search', q: 'x'.repeat(MAX_TEXT) });
  });

  it('reads a player by studio id or account id, and searches for anything else it is given', () => {
    expect(parseConsoleState(`?view=player&key=${STUDIO}`)).toEqual(playerState(STUDIO));
    expect(playerState(STUDIO)).toEqual({ view: 'player', key: STUDIO, kind: '', cursor: '', entry: '', def: '', bagRef: '', items: '' });
    expect(parseConsoleState(`?view=player&key=${UUID.toUpperCase()}`)).toEqual(playerState(UUID));
    expect(parseConsoleState('?view=player&key=ada')).toEqual({ view: 'search', q: 'ada' });
    expect(parseConsoleState('?view=player&key=STUDIO_')).toEqual({ view: 'search', q: 'STUDIO_' });
    expect(parseConsoleState('?view=player')).toEqual(HOME);
    expect(parseConsoleState('?view=player&key=%20%20')).toEqual(HOME);
  });

  it('keeps a wallet kind the service takes, a cursor up to its bound and an entry that is a uuid; drops the rest', () => {
    for (const kind of WALLET_KINDS) expect(parseConsoleState(`?view=player&key=${STUDIO}&kind=${kind}`)).toMatchObject({ kind });
    expect(parseConsoleState(`?view=player&key=${STUDIO}&kind=grant`)).toMatchObject({ kind: '' });
    expect(parseConsoleState(`?view=player&key=${STUDIO}&cursor=${'c'.repeat(400)}`)).toMatchObject({ cursor: 'c'.repeat(MAX_CURSOR) });
    expect(parseConsoleState(`?view=player&key=${STUDIO}&entry=${UUID.toUpperCase()}`)).toMatchObject({ entry: UUID });
    expect(parseConsoleState(`?view=player&key=${STUDIO}&entry=123`)).toMatchObject({ entry: '' });
  });

  it('keeps the open bag history, an entry of it to mark by source ref, and an item state the service takes; drops the rest', () => {
    const def = 'MATL-20260601090000-000101-F469B3E9';
    const ref = 'bag-grant:seed-bag-10000';
    const at = (q: string) => parseConsoleState(`?view=player&key=${STUDIO}&${q}`);
    expect(at(`def=${def}`)).toMatchObject({ def, bagRef: '' });
    expect(at(`def=%20${def}%20&bagRef=${ref}`)).toMatchObject({ def, bagRef: ref });
    expect(at(`def=${'d'.repeat(MAX_TEXT + 5)}`)).toMatchObject({ def: 'd'.repeat(MAX_TEXT) });
    for (const r of ['bag-consume:abcdefgh', 'bag-reversal:console-bag-reversal-1', `bag-grant:${'k'.repeat(255)}`])
      expect(at(`def=${def}&bagRef=${encodeURIComponent(r)}`)).toMatchObject({ bagRef: r });
    // a mark without its history, or that is no bag source ref, is dropped
    expect(at(`bagRef=${ref}`)).toMatchObject({ def: '', bagRef: '' });
    for (const r of [
      'bag-grant:short',
      'grant:abcdefgh',
      'bag-gift:abcdefgh',
      `xbag-grant:abcdefgh`,
      'bag-grant:abcdefgh x',
      `bag-grant:abcd\nefgh`,
    ])
      expect(at(`def=${def}&bagRef=${encodeURIComponent(r)}`), r).toMatchObject({ bagRef: '' });
    expect(at(`def=${def}&bagRef=${encodeURIComponent(`bag-grant:${'k'.repeat(256)}`)}`)).toMatchObject({ bagRef: '' });
    for (const items of ITEM_STATES) expect(at(`items=${items}`)).toMatchObject({ items });
    expect(ITEM_STATES).toEqual(['owned', 'assigned', 'equipped', 'consumed', 'destroyed', 'voided']);
    expect(at('items=lost')).toMatchObject({ items: '' });
    expect(at('items=VOIDED')).toMatchObject({ items: '' });
  });

  it('reads the audit filters and the health view', () => {
    expect(
      parseConsoleState('?view=audit&actor=admin:STUDIO_X&account=STUDIO_Y&route=admin/ban&from=2026-11-01&to=2026-11-30&cursor=abc'),
    ).toEqual({
      view: 'audit',
      actor: 'admin:STUDIO_X',
      account: 'STUDIO_Y',
      route: 'admin/ban',
      from: '2026-11-01',
      to: '2026-11-30',
      cursor: 'abc',
    });
    expect(parseConsoleState('?view=audit')).toEqual({ view: 'audit', actor: '', account: '', route: '', from: '', to: '', cursor: '' });
    expect(parseConsoleState('?view=health&extra=1')).toEqual({ view: 'health' });
  });
});

describe('the sign-in’s return address', () => {
  it('returns to a console address, and to the search from anything else', () => {
    const back = consoleHref({ ...playerState(STUDIO), kind: 'reversal' });
    expect(parseConsoleState(`?view=signin&back=${encodeURIComponent(back)}`)).toEqual({
      view: 'signin',
      back: { ...playerState(STUDIO), kind: 'reversal' },
    });
    expect(returnState('/admin/')).toEqual(HOME);
    expect(returnState(null)).toEqual(HOME);
    for (const bad of [
      '/',
      '/?view=item&kind=weapons&id=x',
      '//evil.example/admin/?view=health',
      'https://evil.example/admin/?view=health',
      '/admin/../?view=health',
      '/adminx/?view=health',
      '/admin/x?view=health',
      '/admin/view=health',
      '/admin/&view=health',
      'javascript:alert(1)',
      `/admin/?view=signin&back=${encodeURIComponent('/admin/?view=health')}`,
    ])
      expect(returnState(bad), bad).toEqual(HOME);
    expect(returnState('/admin/?view=health')).toEqual({ view: 'health' });
  });

  it('never nests: a sign-in of a sign-in returns where the inner one would', () => {
    const inner = signInState({ view: 'health' });
    expect(signInState(inner)).toEqual(inner);
    expect(consoleQuery({ view: 'signin', back: inner })).toBe('?view=signin');
    expect(consoleQuery(signInState(HOME))).toBe('?view=signin');
    expect(consoleQuery(signInState({ view: 'health' }))).toBe(`?view=signin&back=${encodeURIComponent('/admin/?view=health')}`);
  });
});

describe('consoleQuery and consoleHref', () => {
  it('write view first, members in a fixed order, empty members left out', () => {
    expect(consoleHref(HOME)).toBe(CONSOLE_PATH);
    expect(CONSOLE_PATH).toBe('/admin/');
    expect(consoleQuery({ view: 'search', q: 'ada lovelace' })).toBe('?view=search&q=ada+lovelace');
    expect(
      consoleQuery({
        view: 'player',
        key: STUDIO,
        kind: 'admin_grant_coin',
        cursor: 'c1',
        entry: UUID,
        def: 'MATL-1',
        bagRef: 'bag-grant:abcdefgh',
        items: 'voided',
      }),
    ).toBe(`?view=player&key=${STUDIO}&kind=admin_grant_coin&cursor=c1&entry=${UUID}&def=MATL-1&bagRef=bag-grant%3Aabcdefgh&items=voided`);
    // a mark is written only with its history
    expect(consoleQuery({ ...playerState(STUDIO), bagRef: 'bag-grant:abcdefgh' })).toBe(`?view=player&key=${STUDIO}`);
    expect(consoleHref(auditState({ account: UUID }))).toBe(`/admin/?view=audit&account=${UUID}`);
    expect(auditState()).toEqual({ view: 'audit', actor: '', account: '', route: '', from: '', to: '', cursor: '' });
    expect(auditState({ actor: 'a', route: 'admin/ban', from: 'f', to: 't' })).toEqual({
      view: 'audit',
      actor: 'a',
      account: '',
      route: 'admin/ban',
      from: 'f',
      to: 't',
      cursor: '',
    });
    expect(consoleQuery(playerState(STUDIO))).toBe(`?view=player&key=${STUDIO}`);
    expect(consoleQuery({ view: 'audit', actor: '', account: 'STUDIO_Y', route: '', from: '', to: 'z', cursor: '' })).toBe(
      '?view=audit&account=STUDIO_Y&to=z',
    );
    expect(consoleHref({ view: 'health' })).toBe('/admin/?view=health');
  });

  it('round-trips every state it can write', () => {
    const text = fc.string({ maxLength: 20 }).map((s) => s.trim());
    const key = fc.oneof(
      fc.constant(STUDIO),
      fc.uuid().map((u) => u.toLowerCase()),
    );
    const player = fc
      .record({
        view: fc.constant('player' as const),
        key,
        kind: fc.constantFrom('', ...WALLET_KINDS),
        cursor: text,
        entry: fc.oneof(
          fc.constant(''),
          fc.uuid().map((u) => u.toLowerCase()),
        ),
        items: fc.constantFrom('', ...ITEM_STATES),
      })
      .chain((p) =>
        fc.oneof(
          fc.constant({ ...p, def: '', bagRef: '' }),
          fc
            .record({
              def: text.filter((d) => d !== ''),
              bagRef: fc.oneof(fc.constant(''), fc.stringMatching(/^bag-(grant|consume|reversal):[A-Za-z0-9._:~+/=-]{8,40}$/)),
            })
            .map((b) => ({ ...p, ...b })),
        ),
      );
    const audit = fc.record({
      view: fc.constant('audit' as const),
      actor: text,
      account: text,
      route: text,
      from: text,
      to: text,
      cursor: text,
    });
    const plain = fc.oneof(
      fc.record({ view: fc.constant('search' as const), q: text }),
      player,
      audit,
      fc.constant({ view: 'health' as const }),
    );
    const state: fc.Arbitrary<ConsoleState> = fc.oneof(
      plain,
      plain.map((back) => signInState(back)),
    );
    fc.assert(
      fc.property(state, (s) => {
        expect(parseConsoleState(consoleQuery(s))).toEqual(s);
        expect(consoleQuery(parseConsoleState(consoleQuery(s)))).toBe(consoleQuery(s));
      }),
    );
  });

  it('never throws on any query string', () => {
    fc.assert(fc.property(fc.string(), (s) => void parseConsoleState(s)));
  });
});

describe('isAccountKey and sectionOf', () => {
  it('take a studio id or a uuid as an account key', () => {
    expect([STUDIO, UUID, UUID.toUpperCase(), 'STUDIO_a-b_c'].every(isAccountKey)).toBe(true);
    expect(['', 'ada', 'STUDIO_', `STUDIO_${'A'.repeat(65)}`, `${UUID}0`, `x${UUID}`, 'xSTUDIO_A', 'STUDIO_A b'].some(isAccountKey)).toBe(
      false,
    );
  });

  it('names the header section of each view', () => {
    expect(sectionOf(HOME)).toBe('players');
    expect(sectionOf(playerState(STUDIO))).toBe('players');
    expect(sectionOf(parseConsoleState('?view=audit'))).toBe('audit');
    expect(sectionOf({ view: 'health' })).toBe('health');
    expect(sectionOf(signInState(HOME))).toBeUndefined();
  });
});
