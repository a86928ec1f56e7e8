// The page's entry point: the router, the login card and the theme switch. Each view is an ES module of its own,
// loaded the first time it is shown, so a first visit loads only what its view needs. No build step, nothing from
// another origin. Untrusted run data is only ever set as text (see dom.js).
import { setUpLogin } from './login.js';
import { registerView, render } from './router.js';
import { setUpTheme } from './theme.js';

/** View name -> its module under views/ and the function that module exports. */
const VIEWS = {
  workflows: ['workflows', 'workflowsView'], runs: ['runs', 'runsView'], run: ['run', 'runView'], failures: ['failures', 'failuresView'],
  txs: ['txs', 'txsView'], approvals: ['approvals', 'approvalsView'], waiting: ['waiting', 'waitingView'], reorgs: ['reorgs', 'reorgsView'],
  replays: ['replays', 'replaysView'], relayers: ['relayers', 'relayersView'], spend: ['spend', 'spendView'], compare: ['compare', 'compareView'],
};

/**
 * The view's module. Its address carries the version this page was served with: after the server was updated,
 * the old version is gone, and the page has to be reloaded.
 */
async function load(file) {
  try {
    return await import('./views/' + file + '.js');
  } catch {
    throw new Error('the code of this view did not load; the server may have been updated since this page was opened. Reload the page.');
  }
}

setUpTheme();
setUpLogin();
// The skip link's own `#main` would be read as a view's name by the router: it moves focus itself.
document.getElementById('skip').addEventListener('click', (e) => {
  e.preventDefault();
  document.getElementById('main').focus();
});
for (const [name, [file, fn]] of Object.entries(VIEWS)) registerView(name, async (ctx) => (await load(file))[fn](ctx));
window.addEventListener('hashchange', render);
render();
