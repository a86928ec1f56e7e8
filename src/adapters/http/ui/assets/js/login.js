// The login card (SPEC Authentication 7): shown on any 401 over the view; the token field is a password input
// emptied as soon as the form is submitted; a problem is said without quoting the token.
import { login, store, whenAuthNeeded } from './api.js';
import { main, render } from './router.js';

const box = document.getElementById('login');
const form = document.getElementById('login-form');
const input = document.getElementById('login-token');
const problem = document.getElementById('login-err');
const submit = document.getElementById('login-submit');
const signout = document.getElementById('signout');

function showLogin(why) {
  document.getElementById('login-why').textContent = why;
  main.dataset.state = 'login';
  if (box.hidden) {
    problem.textContent = '';
    box.hidden = false;
  }
  signout.hidden = true;
  input.focus();
}

export function setUpLogin() {
  whenAuthNeeded(showLogin);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const token = input.value.trim();
    input.value = '';
    if (!token) return;
    submit.disabled = true;
    problem.textContent = '';
    login(token).then((refused) => {
      submit.disabled = false;
      if (refused) {
        problem.textContent = refused;
        input.focus();
        return;
      }
      box.hidden = true;
      render();
    });
  });
  signout.addEventListener('click', () => {
    store.clear();
    showLogin('Signed out.');
  });
}
