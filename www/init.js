// Boots the Wasm page from a file instead of Trunk's inline loader, so that the
// page runs under the Content-Security-Policy in index.html (script-src 'self',
// no 'unsafe-inline'). Trunk writes the <script> that loads this file (see
// `pattern_script` in Trunk.toml) with the hashed names of the wasm-bindgen JS
// and the .wasm in data attributes. Those paths are relative to the page ("./x"
// in index.html, "../x" in eval/index.html), so dist/ works from any sub-path of
// a static host. Both are resolved here against document.baseURI explicitly: a
// bare dynamic import() would resolve against this script's URL, and the .wasm
// fetch against the document's.
const tag = document.querySelector('script[data-evalpage-js][data-evalpage-wasm]');
if (!tag) throw new Error('evalpage: loader <script> with data-evalpage-js / data-evalpage-wasm not found');
// The viewer (`?mode=view`) is its own bundle (scripts/post_build.sh names its
// files in data-evalpage-view-*): opening a saved run loads none of the run
// modes' code, and a run mode loads none of the viewer's.
const d = tag.dataset;
const view = new URLSearchParams(location.search).get('mode') === 'view' && d.evalpageViewJs;
const js = view ? d.evalpageViewJs : d.evalpageJs;
const wasmPath = view ? d.evalpageViewWasm : d.evalpageWasm;
const here = (p) => new URL(p, document.baseURI).href;
const { default: init } = await import(here(js));
const wasm = await init({ module_or_path: here(wasmPath) });
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));
