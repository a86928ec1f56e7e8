// The operator's commands (CONTRACT 8.4): approve or reject a pending approval (with a reason), cancel a running
// or parked run (after a confirmation), pause or resume a configured workflow. Questions are asked in a dialog
// of the page, never with window.prompt or confirm; a refused command shows the API's own message and leaves
// the page as it was.
import { ApiError, AuthNeeded, post } from './api.js';
import { focusLost, focusOn, h, rtext } from './dom.js';
import { idv } from './links.js';
import { errorMessage } from './router.js';

const dialog = document.getElementById('ask');

/**
 * Asks in the page's modal dialog. `body`: nodes explaining what happens; `reason`: a text field to fill in
 * (`{ label, placeholder }`), or none; `confirm`: the label of the button that acts. Submitting runs
 * `act(reason)`; while it runs its button is marked busy. A failure shows the API's message and keeps the dialog
 * open; success closes it. `after(answer)` runs after success, and after a 404 or 409 too (the thing changed
 * meanwhile, so what the page shows is stale).
 */
export function ask({ title, body, reason, confirm, danger, act, after }) {
  const err = h('p', { class: 'err', role: 'alert' });
  const field = reason
    ? h('textarea', { name: 'reason', rows: 3, maxLength: 2000, required: true, placeholder: reason.placeholder || '', spellcheck: true })
    : null;
  const submit = h('button', { type: 'submit', class: danger ? 'danger' : 'primary' }, confirm);
  const back = h('button', { type: 'button', value: 'back' }, 'Back');
  const form = h('form', { class: 'ask' },
    h('h2', null, title), body,
    field ? h('label', null, reason.label, field) : null,
    err,
    h('div', { class: 'buttons' }, submit, back));
  back.addEventListener('click', () => dialog.close());
  // While the command runs the button says so with aria-disabled: a disabled button would drop the focus it has.
  let busy = false;
  let settled = false;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (busy) return;
    const text = field ? field.value.trim() : undefined;
    if (field && !text) {
      err.textContent = reason.label + ' is required.';
      field.focus();
      return;
    }
    busy = true;
    submit.setAttribute('aria-disabled', 'true');
    err.textContent = '';
    act(text).then((answer) => {
      settled = true;
      dialog.close();
      if (after) after(answer);
    }, (e2) => {
      // Refused for want of a token: the login card shows, and the dialog (modal, so above it) gets out of its way.
      if (e2 instanceof AuthNeeded) {
        settled = true;
        dialog.close();
        return;
      }
      busy = false;
      submit.removeAttribute('aria-disabled');
      err.textContent = errorMessage(e2);
      if (after && e2 instanceof ApiError && (e2.status === 404 || e2.status === 409)) after(null);
    });
  });
  // Closing returns focus to the button that opened the dialog; when a refusal made the page read its row or view
  // again meanwhile, that button is gone, and focus goes to the same row (or item) as read again. (After a command
  // that went through, or a login card, the page places focus itself.)
  const opener = document.activeElement instanceof Element ? document.activeElement : null;
  const item = opener && opener.closest('[data-approval], [data-run]');
  const again = item ? '[data-' + (item.dataset.approval !== undefined ? 'approval' : 'run') + '="' + CSS.escape(item.dataset.approval ?? item.dataset.run) + '"]' : null;
  dialog.addEventListener('close', () => {
    // (Focus may still sit in the closed dialog when the opener is gone: lost just the same.)
    if (settled || !(focusLost() || dialog.contains(document.activeElement))) return;
    focusOn(opener && opener.isConnected ? opener : (again && document.querySelector('main ' + again)) || document.querySelector('main h1'));
  }, { once: true });
  dialog.replaceChildren(form);
  dialog.showModal();
  // A destructive question starts on the safe answer, so that an Enter pressed out of habit does no harm.
  (field || (danger ? back : submit)).focus();
}

/**
 * After a command replaced the element that had focus (its row read again, its button gone), focus goes to
 * `el`, the new content, unless the user has moved it elsewhere meanwhile.
 */
export function focusIfLost(el) {
  if (focusLost()) focusOn(el);
}

/** Approve and Reject buttons for an approval that is pending and not past its expiry; none otherwise. */
export function approvalButtons(a, after) {
  if (!a || a.status !== 'pending' || (a.expires_at && Date.parse(a.expires_at) <= Date.now())) return null;
  const decide = (decision) => () => ask({
    title: (decision === 'approve' ? 'Approve' : 'Reject') + ' this approval?',
    body: [
      h('p', null, 'Approval ', idv(a.approval_id, 'approval id'), ' of run ', idv(a.run_id, 'run id'), ' (', a.workflow, ')'),
      a.message ? h('blockquote', null, rtext(a.message)) : null,
      h('p', { class: 'muted' }, decision === 'approve' ? 'The run goes on with its next step.' : 'The step fails with approval_rejected; the run does not go on.'),
    ],
    reason: { label: 'Reason', placeholder: decision === 'approve' ? 'e.g. checked the address with finance' : 'e.g. amount above the agreed limit' },
    confirm: decision === 'approve' ? 'Approve' : 'Reject',
    danger: decision === 'reject',
    act: (reason) => post('/api/approvals/' + encodeURIComponent(a.approval_id) + '/decision', { decision, reason }),
    after,
  });
  return h('span', { class: 'acts' },
    h('button', { type: 'button', class: 'act', 'data-act': 'approve', on: { click: decide('approve') } }, 'Approve'),
    h('button', { type: 'button', class: 'act danger', 'data-act': 'reject', on: { click: decide('reject') } }, 'Reject'));
}

/** A Cancel button for a run that is running or parked (waiting); none otherwise. */
export function cancelButton(run, after) {
  if (!run || (run.status !== 'running' && run.status !== 'waiting')) return null;
  const open = () => ask({
    title: 'Cancel this run?',
    body: [
      h('p', null, 'Run ', idv(run.run_id, 'run id'), ' (', run.workflow, ') ends ', h('strong', null, 'cancelled'), ' and is not driven any further.'),
      h('p', { class: 'muted' }, 'A pending approval of the run is closed as rejected. A send already broadcast is still settled and recorded.'),
    ],
    confirm: 'Cancel run',
    danger: true,
    act: () => post('/api/runs/' + encodeURIComponent(run.run_id) + '/cancel'),
    after,
  });
  return h('button', { type: 'button', class: 'act danger', 'data-act': 'cancel', on: { click: open } }, 'Cancel run');
}

/**
 * Pause (or Resume) for a configured workflow, at once (either undoes the other); a refusal is shown beside
 * the button.
 */
export function pauseButton(w, after) {
  const action = w.paused ? 'resume' : 'pause';
  const err = h('div', { class: 'err refused', role: 'alert' });
  // `data-focus` is the same for Pause and Resume: after the view is read again, the button that replaced this one
  // has focus. While the command runs, aria-disabled (not disabled, which would drop the focus).
  const btn = h('button', { type: 'button', class: 'act', 'data-act': action, 'data-focus': 'state-' + w.workflow }, w.paused ? 'Resume' : 'Pause');
  let busy = false;
  btn.addEventListener('click', () => {
    if (busy) return;
    busy = true;
    btn.setAttribute('aria-disabled', 'true');
    err.textContent = '';
    post('/api/workflows/' + encodeURIComponent(w.workflow) + '/' + action).then((answer) => after(answer), (e) => {
      busy = false;
      btn.removeAttribute('aria-disabled');
      err.textContent = errorMessage(e);
    });
  });
  return [h('span', { class: 'acts' }, btn), err];
}
