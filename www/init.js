// Boots the page from a file instead of Trunk's inline loader, so that the page
// runs under the Content-Security-Policy in index.html (script-src 'self', no
// 'unsafe-inline'), and loads each mode's code when the mode is first opened.
//
// Each mode is its own Wasm bundle (one bin per mode, src/main.rs and src/bin/):
// the post-build hook (scripts/post_build.sh) builds them and writes their files
// on the <script> that loads this file (data-evalpage-js / data-evalpage-wasm for
// the RAG check, data-evalpage-<mode>-js / -wasm for the others). The first load
// fetches the URL's mode only. A mode opened later (the Rust side writes `?mode=` and fires
// `evalpage-open`, src/effects/modes.rs) is fetched once, mounted on its own
// element #evalpage-<mode>, and kept: every loaded mode hears `evalpage-show`,
// shows itself when it is the URL's mode and hides (keeping its state and its
// run) when it is not. While a mode's code arrives the page says so, and when it
// cannot be fetched the page says why with a Retry button.
//
// The paths are relative to the page ("./x" in index.html, "../x" in
// eval/index.html), so dist/ works from any sub-path of a static host; they are
// resolved here against document.baseURI explicitly (a bare dynamic import()
// would resolve against this script's URL, the .wasm fetch against the
// document's).
const tag = document.querySelector('script[data-evalpage-js][data-evalpage-wasm]');
if (!tag) throw new Error('evalpage: loader <script> with data-evalpage-js / data-evalpage-wasm not found');
const d = tag.dataset;
// The modes are those whose bundle scripts/post_build.sh wrote on the loader
// tag: data-evalpage-js for the RAG check, data-evalpage-<mode>-js for each
// other mode.
const MODES = ['rag', ...Object.keys(d)
  .map((k) => /^evalpage(\w+)Js$/.exec(k))
  .filter(Boolean)
  .map((m) => m[1].toLowerCase())];
const NAMES = {
  rag: ['RAG 评测', 'RAG check'],
  task: ['任务评测', 'task mode'],
  retrieval: ['检索评测', 'retrieval mode'],
  dialog: ['多轮对话评测', 'dialog mode'],
  view: ['查看器', 'viewer'],
};
const here = (p) => new URL(p, document.baseURI).href;
// The model file on this device: its module (local_model.js, beside this
// file) and the engine it loads are fetched only when a model file is picked
// (src/effects/local_model.rs calls this).
let localModel = null;
globalThis.evalpageLocalModel = () => (localModel ??= import(new URL('./local_model.js', import.meta.url).href).catch((e) => {
  localModel = null;
  throw e;
}));
const params = () => new URLSearchParams(location.search);
const modeOf = () => (MODES.includes(params().get('mode')) ? params().get('mode') : 'rag');
const en = () => params().get('lang') === 'en';
const files = (mode) => {
  if (mode === 'rag') return [d.evalpageJs, d.evalpageWasm];
  const key = mode[0].toUpperCase() + mode.slice(1);
  return [d[`evalpage${key}Js`], d[`evalpage${key}Wasm`]];
};

// The URL's other parameters (a dataset, a share link's fields) are the first
// mode's: the Rust side reads this to know whose they are.
document.documentElement.dataset.evalpageFirstMode = modeOf();

// mode -> 'loading' | 'ready' | Error
const state = new Map();
// Modes whose script itself failed to import.
const importFailed = new Set();
let tries = 0;
// The last mode that ran while shown (where a failed mode's page leads back to).
let shownBefore = null;

// The line that says the URL's mode is loading or could not be loaded (none
// once it runs).
const line = document.createElement('div');
line.id = 'evalpage-loading';
line.className = 'page mode-status';
document.body.appendChild(line);

function showStatus() {
  const mode = modeOf();
  const s = state.get(mode);
  const [zh, eng] = NAMES[mode];
  const name = en() ? eng : zh;
  line.replaceChildren();
  line.hidden = s === 'ready' || s === undefined;
  if (s === 'loading') {
    const p = document.createElement('p');
    p.setAttribute('role', 'status');
    p.dataset.testid = 'mode-loading';
    p.textContent = en() ? `Loading the ${name}…` : `正在加载${name}…`;
    line.appendChild(p);
  } else if (s instanceof Error) {
    const p = document.createElement('p');
    p.className = 'error';
    p.setAttribute('role', 'alert');
    p.dataset.testid = 'mode-load-failed';
    p.textContent = en()
      ? `The ${name}'s code could not be loaded (${s.message}). Check the connection and retry.`
      : `${name}的代码未能加载（${s.message}）。请检查网络后重试。`;
    const retry = document.createElement('button');
    retry.className = 'primary';
    retry.dataset.testid = 'mode-load-retry';
    retry.textContent = en() ? 'Retry' : '重试';
    retry.addEventListener('click', () => { state.delete(mode); tries += 1; open(); });
    p.append(' ', retry);
    // Back to the mode shown before, when there is one (its state is kept).
    // (shownBefore is only ever a mode that runs)
    const back = shownBefore;
    if (back) {
      const b = document.createElement('button');
      b.dataset.testid = 'mode-load-back';
      const [bzh, ben] = NAMES[back];
      b.textContent = en() ? `Back to the ${ben}` : `返回${bzh}`;
      b.addEventListener('click', () => {
        const q = params();
        if (back === 'rag') q.delete('mode'); else q.set('mode', back);
        const query = q.toString();
        history.replaceState(null, '', location.pathname + (query ? `?${query}` : ''));
        open();
      });
      p.append(' ', b);
    }
    line.appendChild(p);
  }
}

async function load(mode) {
  state.set(mode, 'loading');
  showStatus();
  try {
    const [js, wasm] = files(mode);
    if (!js || !wasm) throw new Error('this build has no bundle for it; rebuild with trunk build');
    let root = document.getElementById(`evalpage-${mode}`);
    if (!root) {
      root = document.createElement('div');
      root.id = `evalpage-${mode}`;
      document.body.insertBefore(root, line);
    }
    // A retry after a failed import imports the script afresh (a failed import
    // may be remembered); after a failed .wasm it imports the same script, which
    // its split loader (<bundle>.split.js) imports too: the two must be one module.
    // The .wasm is fetched while the script (and the split loader it imports)
    // loads, not after: one round trip less before the mode can start.
    const wasmFetch = fetch(here(wasm));
    wasmFetch.catch(() => {}); // awaited below; a failure is reported there
    let glue;
    try {
      glue = await import(here(js) + (importFailed.has(mode) ? `?retry=${tries}` : ''));
    } catch (e) {
      importFailed.add(mode);
      throw e;
    }
    const wasmModule = await glue.default({ module_or_path: wasmFetch });
    state.set(mode, 'ready');
    if (modeOf() === mode) shownBefore = mode;
    dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { mode, wasm: wasmModule } }));
  } catch (e) {
    state.set(mode, e instanceof Error ? e : new Error(String(e)));
  }
  showStatus();
}

function open() {
  dispatchEvent(new Event('evalpage-show'));
  const mode = modeOf();
  if (state.get(mode) === 'ready') shownBefore = mode;
  if (!state.has(mode)) load(mode);
  else showStatus();
}

addEventListener('evalpage-open', open);
open();
