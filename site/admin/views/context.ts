/**
 * What every view of the operator console receives from the page (`site/admin/main.ts`): where to render, a
 * signal that aborts when the view is left, who is signed in, the keys of intended actions, and how to move
 * to another state or say something on the status line (docs/architecture.md, "Operator console").
 */
import type { ActionKeys } from '../intents.js';
import type { SignedIn, TokenProblem } from '../session.js';
import type { ConsoleState } from '../state.js';

/** The page services a view uses. */
export interface ConsoleContext {
  /** The element the view fills (`#view`); it is emptied before the view renders. */
  readonly root: HTMLElement;
  /** Aborted when another state replaces this one; a view writes nothing after that. */
  readonly signal: AbortSignal;
  /** The operator signed in (undefined only on the sign-in view). */
  readonly who: SignedIn | undefined;
  /** The idempotency keys of intended actions, kept for the tab (`intents.ts`). */
  readonly keys: ActionKeys;
  /** Go to `state`: a new history entry, or (`replace`) the current one rewritten; the page renders it. */
  navigate(state: ConsoleState, options?: { readonly replace?: boolean; readonly keepFocus?: boolean }): void;
  /** Rewrite the address to `state` without rendering (a view already showing it, such as a search box as it is typed). */
  rewrite(state: ConsoleState): void;
  /** Render the current state again from the service (after an action: never an optimistic guess). */
  reload(): void;
  /** Put a sentence on the polite status line (`aria-live`). */
  announce(text: string): void;
  /** Set the document title: `<what> · Operator console`. */
  title(what: string): void;
  /**
   * Keep `token` as the tab's sign-in and go back where the operator was; or why the token is not taken
   * (nothing is kept then).
   */
  signIn(token: string, back: ConsoleState): { readonly problem: TokenProblem } | undefined;
  /** Why the sign-in is shown, when the page sent the operator there (a session that ended), else undefined. */
  readonly notice: string | undefined;
}

/** A view: renders `state` into `ctx.root`. */
export type ConsoleViewFn<S extends ConsoleState> = (state: S, ctx: ConsoleContext) => void | Promise<void>;
