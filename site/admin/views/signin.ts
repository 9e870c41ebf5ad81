/**
 * Sign-in view (`/admin/?view=signin&back=…`; docs/architecture.md, "Operator console"): with the admin
 * password, exchanged once for a short-lived operator token (`POST /api/admin/session`; the password is sent
 * and forgotten, the field emptied), or with an operator token pasted as it is (a support, admin or master
 * token). Either way the page keeps only the token, for the tab's life, and returns to `back`.
 */
import { exchangePassword } from '../api.js';
import { h } from '../../dom.js';
import { TOKEN_PROBLEMS } from '../session.js';
import { consoleHref, type ConsoleState } from '../state.js';
import { problemBox } from './common.js';
import type { ConsoleViewFn } from './context.js';

/** The sign-in view (see the module header). */
export const signInView: ConsoleViewFn<Extract<ConsoleState, { view: 'signin' }>> = (state, ctx) => {
  ctx.title('Sign in');
  const back = state.back;
  const intro = h(
    'p',
    { class: 'lead' },
    back.view === 'search' && back.q === '' ? 'Sign in to find players and act on their accounts.' : 'Sign in to return to ',
    back.view === 'search' && back.q === '' ? null : h('code', {}, consoleHref(back)),
    back.view === 'search' && back.q === '' ? null : '.',
  );

  const pwStatus = h('div', { class: 'form-status', id: 'password-status' });
  const password = h('input', {
    id: 'admin-password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    minlength: 1,
    'aria-describedby': 'password-help password-status',
  });
  const pwButton = h('button', { type: 'submit' }, 'Sign in');
  const pwForm = h(
    'form',
    { id: 'password-form', class: 'signin-form', 'aria-labelledby': 'password-heading' },
    h('h2', { id: 'password-heading' }, 'With the admin password'),
    h('label', { for: 'admin-password' }, 'Admin password'),
    password,
    h(
      'p',
      { id: 'password-help', class: 'help' },
      'Exchanged once for an admin token that lasts 15 minutes; the password itself is not kept.',
    ),
    pwButton,
    pwStatus,
  );
  pwForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = password.value;
    if (value === '') return;
    pwButton.disabled = true;
    pwStatus.replaceChildren(h('p', { class: 'muted' }, 'Signing in…'));
    exchangePassword(value).then(
      (session) => {
        password.value = '';
        if (ctx.signal.aborted) return;
        const refused = ctx.signIn(session.token, back);
        if (refused) pwStatus.replaceChildren(h('p', { class: 'error', role: 'alert' }, TOKEN_PROBLEMS[refused.problem]));
      },
      (e: unknown) => {
        password.value = '';
        if (ctx.signal.aborted) return;
        pwButton.disabled = false;
        pwStatus.replaceChildren(problemBox(e));
        password.focus();
      },
    );
  });

  const tokenStatus = h('div', { class: 'form-status', id: 'token-status' });
  const token = h('textarea', {
    id: 'operator-token',
    name: 'token',
    rows: 3,
    required: true,
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-describedby': 'token-help token-status',
  });
  const tokenForm = h(
    'form',
    { id: 'token-form', class: 'signin-form', 'aria-labelledby': 'token-heading' },
    h('h2', { id: 'token-heading' }, 'With an operator token'),
    h('label', { for: 'operator-token' }, 'Operator token'),
    token,
    h('p', { id: 'token-help', class: 'help' }, 'A token whose role is support (to look) or admin or master (to act too).'),
    h('button', { type: 'submit' }, 'Use this token'),
    tokenStatus,
  );
  tokenForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const refused = ctx.signIn(token.value, back);
    if (refused) tokenStatus.replaceChildren(h('p', { class: 'error', role: 'alert' }, TOKEN_PROBLEMS[refused.problem]));
  });

  ctx.root.append(
    h('h1', { tabindex: '-1' }, 'Sign in'),
    ...(ctx.notice ? [h('p', { class: 'notice', role: 'status', id: 'signin-notice' }, ctx.notice)] : []),
    intro,
    h('div', { class: 'signin-forms' }, pwForm, tokenForm),
  );
  password.focus();
};
