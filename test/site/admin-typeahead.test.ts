// Search as you type (site/admin/typeahead.ts): a wait after the last keystroke, at most one request in
// flight, only the latest text sent after it, answers to older text dropped; with fake timers and promises
// the test settles itself.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { typeahead, type Timers } from '../../site/admin/typeahead.js';

/** Fake timers: `advance(ms)` runs what is due. */
function fakeTimers(): Timers & { advance(ms: number): void; pending(): number } {
  let now = 0;
  let next = 1;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    setTimeout(fn, ms) {
      const id = next++;
      due.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(h) {
      due.delete(h as number);
    },
    advance(ms) {
      now += ms;
      for (const [id, t] of [...due].sort((a, b) => a[1].at - b[1].at)) {
        if (t.at > now) continue;
        due.delete(id);
        t.fn();
      }
    },
    pending: () => due.size,
  };
}

/** A service stand-in: each query's answer waits until the test resolves it. */
function service() {
  const calls: { q: string; resolve: (v: string) => void; reject: (e: Error) => void }[] = [];
  let inFlight = 0;
  let most = 0;
  return {
    calls,
    most: () => most,
    run: (q: string) =>
      new Promise<string>((resolve, reject) => {
        inFlight++;
        most = Math.max(most, inFlight);
        const done = () => inFlight--;
        calls.push({
          q,
          resolve: (v) => {
            done();
            resolve(v);
          },
          reject: (e: Error) => {
            done();
            reject(e);
          },
        });
      }),
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function setup() {
  const timers = fakeTimers();
  const svc = service();
  const shown: [string, string][] = [];
  const failed: string[] = [];
  const busy: boolean[] = [];
  const t = typeahead<string>({
    delayMs: 200,
    run: svc.run,
    show: (q, a) => shown.push([q, a]),
    fail: (q) => failed.push(q),
    busy: (b) => busy.push(b),
    timers,
  });
  return { timers, svc, shown, failed, busy, t };
}

describe('typeahead', () => {
  it('sends once the typing pauses, the latest text only', async () => {
    const { timers, svc, shown, busy, t } = setup();
    t.input('a');
    timers.advance(150);
    t.input('ad');
    timers.advance(150);
    t.input('ada');
    expect(svc.calls).toEqual([]);
    timers.advance(199);
    expect(svc.calls).toEqual([]);
    timers.advance(1);
    expect(svc.calls.map((c) => c.q)).toEqual(['ada']);
    svc.calls[0]!.resolve('A');
    await tick();
    expect(shown).toEqual([['ada', 'A']]);
    expect(busy).toEqual([true, false]);
    expect(t.latest()).toBe('ada');
  });

  it('keeps one request in flight, then sends only the latest text typed meanwhile, and drops the stale answer', async () => {
    const { timers, svc, shown, t } = setup();
    t.input('ad');
    timers.advance(200);
    t.input('ada');
    timers.advance(200);
    t.input('adam');
    timers.advance(200);
    expect(svc.calls.map((c) => c.q)).toEqual(['ad']);
    svc.calls[0]!.resolve('AD');
    await tick();
    expect(shown).toEqual([]);
    expect(svc.calls.map((c) => c.q)).toEqual(['ad', 'adam']);
    svc.calls[1]!.resolve('ADAM');
    await tick();
    expect(shown).toEqual([['adam', 'ADAM']]);
    expect(svc.most()).toBe(1);
  });

  it('sends nothing for an empty box, and drops an answer that comes after the box was emptied', async () => {
    const { timers, svc, shown, t } = setup();
    t.input('');
    timers.advance(500);
    expect(svc.calls).toEqual([]);
    t.input('bo');
    timers.advance(200);
    t.input('');
    svc.calls[0]!.resolve('BO');
    await tick();
    expect(shown).toEqual([]);
    timers.advance(500);
    expect(svc.calls).toHaveLength(1);
  });

  it('sends at once on flush, never twice for text already answered or on its way, and again after a failure', async () => {
    const { timers, svc, shown, failed, t } = setup();
    t.input('cleo');
    t.flush();
    expect(svc.calls.map((c) => c.q)).toEqual(['cleo']);
    t.flush();
    timers.advance(500);
    expect(svc.calls).toHaveLength(1);
    svc.calls[0]!.reject(new Error('offline'));
    await tick();
    expect(failed).toEqual(['cleo']);
    t.flush();
    expect(svc.calls.map((c) => c.q)).toEqual(['cleo', 'cleo']);
    svc.calls[1]!.resolve('C');
    await tick();
    expect(shown).toEqual([['cleo', 'C']]);
    t.flush();
    t.input('cleo');
    timers.advance(500);
    expect(svc.calls).toHaveLength(2);
  });

  it('sends a text again once an answer to another text came in between', async () => {
    const { timers, svc, shown, t } = setup();
    t.input('a');
    timers.advance(200);
    t.input('b');
    timers.advance(200);
    svc.calls[0]!.resolve('A');
    await tick();
    t.input('a');
    timers.advance(200);
    svc.calls[1]!.resolve('B');
    await tick();
    expect(svc.calls.map((c) => c.q)).toEqual(['a', 'b', 'a']);
    svc.calls[2]!.resolve('A2');
    await tick();
    expect(shown).toEqual([['a', 'A2']]);
  });

  it('stops on dispose: nothing more is sent or shown', async () => {
    const { timers, svc, shown, busy, t } = setup();
    t.input('x');
    timers.advance(200);
    t.dispose();
    timers.advance(500);
    svc.calls[0]!.resolve('X');
    await tick();
    expect(svc.calls).toHaveLength(1);
    expect(shown).toEqual([]);
    expect(busy).toEqual([true]);
    t.input('z');
    timers.advance(500);
    t.flush();
    expect(svc.calls).toHaveLength(1);
  });

  it('waits out the pause even when the answer in flight comes first, and stays busy while a next request is out', async () => {
    const { timers, svc, shown, busy, t } = setup();
    t.input('a');
    timers.advance(200);
    t.input('ab');
    timers.advance(100);
    svc.calls[0]!.resolve('A');
    await tick();
    // the answer to "a" is stale and "ab" is still within its pause: nothing more yet
    expect(svc.calls.map((c) => c.q)).toEqual(['a']);
    expect(shown).toEqual([]);
    timers.advance(100);
    expect(svc.calls.map((c) => c.q)).toEqual(['a', 'ab']);
    t.input('abc');
    timers.advance(200);
    // "abc" waits for "ab": it goes out as "ab" is answered, and busy stays on in between
    svc.calls[1]!.resolve('AB');
    await tick();
    expect(svc.calls.map((c) => c.q)).toEqual(['a', 'ab', 'abc']);
    expect(busy).toEqual([true, false, true, true]);
    t.input('abcd');
    svc.calls[2]!.resolve('ABC');
    await tick();
    // "abcd" is within its pause: the wait for "abc" was used up
    expect(svc.calls).toHaveLength(3);
    expect(busy).toEqual([true, false, true, true, false]);
    timers.advance(200);
    expect(svc.calls.map((c) => c.q)).toEqual(['a', 'ab', 'abc', 'abcd']);
  });

  it('sends a text again when its answer was dropped, or when the box was emptied and the text typed anew', async () => {
    const { timers, svc, shown, t } = setup();
    t.input('a');
    timers.advance(200);
    t.input('ab');
    svc.calls[0]!.resolve('A');
    await tick();
    t.input('a');
    timers.advance(200);
    expect(svc.calls.map((c) => c.q)).toEqual(['a', 'a']);
    svc.calls[1]!.resolve('A2');
    await tick();
    expect(shown).toEqual([['a', 'A2']]);
    t.input('');
    t.input('a');
    timers.advance(200);
    expect(svc.calls.map((c) => c.q)).toEqual(['a', 'a', 'a']);
  });

  it('uses the page’s own timers by default: a keystroke restarts the pause', async () => {
    const svc = service();
    const t = typeahead<string>({ delayMs: 400, run: svc.run, show: () => undefined, fail: () => undefined });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    t.input('a');
    await sleep(300);
    t.input('ab');
    await sleep(200);
    expect(svc.calls).toEqual([]);
    await sleep(400);
    expect(svc.calls.map((c) => c.q)).toEqual(['ab']);
    t.dispose();
  });

  it('never has two requests in flight, and shows only answers to the box’s text at that moment (model)', async () => {
    const op = fc.oneof(
      fc.record({ k: fc.constant('type' as const), q: fc.constantFrom('', 'a', 'ab', 'abc', 'b') }),
      fc.record({ k: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 400 }) }),
      fc.record({ k: fc.constant('answer' as const), ok: fc.boolean() }),
      fc.constant({ k: 'flush' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        const timers = fakeTimers();
        const svc = service();
        let box = '';
        let answered = 0;
        const t = typeahead<string>({
          delayMs: 200,
          run: svc.run,
          show: (q) => expect(q).toBe(box),
          fail: (q) => expect(q).toBe(box),
          timers,
        });
        for (const o of ops) {
          if (o.k === 'type') {
            box = o.q;
            t.input(o.q);
          } else if (o.k === 'wait') timers.advance(o.ms);
          else if (o.k === 'flush') t.flush();
          else if (answered < svc.calls.length) {
            const c = svc.calls[answered++]!;
            if (o.ok) c.resolve('x');
            else c.reject(new Error('x'));
            await tick();
          }
        }
        expect(svc.most()).toBeLessThanOrEqual(1);
        expect(svc.calls.every((c) => c.q !== '')).toBe(true);
      }),
    );
  });
});
