/**
 * What every view of the catalog browser receives from the page (`main.ts`): where to render, a signal that
 * aborts when the view is left, and how to move to another state or say something on the status line.
 */
import type { PageState } from '../state.js';

/** The page services a view uses. */
export interface ViewContext {
  /** The element the view fills (`#view`); it is emptied before the view renders. */
  readonly root: HTMLElement;
  /** Aborted when another state replaces this one; a view writes nothing after that. */
  readonly signal: AbortSignal;
  /** Go to `state`: a new history entry, or (`replace`) the current one rewritten; the page renders it. */
  navigate(state: PageState, options?: { readonly replace?: boolean; readonly keepFocus?: boolean }): void;
  /**
   * Let the view take later states of the same view in place (keeping its controls and focus): `update`
   * returns true when it has taken `state`, false to have the page render the view anew.
   */
  onUpdate(update: (state: PageState) => boolean): void;
  /** Put a sentence on the polite status line (`aria-live`), e.g. "16 relics.". */
  announce(text: string): void;
  /** Set the document title: `<what> · Game data catalog`. */
  title(what: string): void;
}

/** A view: renders `state` into `ctx.root`. */
export type View<S extends PageState> = (state: S, ctx: ViewContext) => void | Promise<void>;
