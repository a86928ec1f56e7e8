// Dark and light themes: the system's choice (prefers-color-scheme) until the switch picks one, kept in
// localStorage; "System" goes back to following the system.
const THEME_KEY = 'chainflow.theme';

function apply(t) {
  if (t === 'light' || t === 'dark') document.documentElement.dataset.theme = t;
  else delete document.documentElement.dataset.theme;
}

export function setUpTheme() {
  const select = document.getElementById('theme');
  let saved = null;
  try { saved = localStorage.getItem(THEME_KEY); } catch { saved = null; }
  apply(saved);
  select.value = saved === 'light' || saved === 'dark' ? saved : '';
  select.addEventListener('change', () => {
    try {
      if (select.value) localStorage.setItem(THEME_KEY, select.value);
      else localStorage.removeItem(THEME_KEY);
    } catch { /* storage refused: the choice holds for this page only */ }
    apply(select.value);
  });
}
