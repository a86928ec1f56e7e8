// The page's entry point: one ES module per view, registered with the router; no build step, nothing from
// another origin. Untrusted run data is only ever set as text (see dom.js).
import { setUpLogin } from './login.js';
import { registerView, render } from './router.js';
import { setUpTheme } from './theme.js';
import { approvalsView } from './views/approvals.js';
import { compareView } from './views/compare.js';
import { failuresView } from './views/failures.js';
import { relayersView } from './views/relayers.js';
import { replaysView } from './views/replays.js';
import { reorgsView } from './views/reorgs.js';
import { runView } from './views/run.js';
import { runsView } from './views/runs.js';
import { spendView } from './views/spend.js';
import { txsView } from './views/txs.js';
import { waitingView } from './views/waiting.js';
import { workflowsView } from './views/workflows.js';

setUpTheme();
setUpLogin();
for (const [name, view] of Object.entries({
  workflows: workflowsView, runs: runsView, run: runView, failures: failuresView, txs: txsView, approvals: approvalsView,
  waiting: waitingView, reorgs: reorgsView, replays: replaysView, relayers: relayersView, spend: spendView, compare: compareView,
})) registerView(name, view);
window.addEventListener('hashchange', render);
render();
