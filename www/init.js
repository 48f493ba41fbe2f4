// Boots the Wasm page from a file instead of Trunk's inline loader, so that the
// page runs under the Content-Security-Policy in index.html (script-src 'self',
// no 'unsafe-inline'). Trunk writes the <script> that loads this file (see
// `pattern_script` in Trunk.toml) with the public URL and the hashed names of the
// wasm-bindgen JS and the .wasm in data attributes, so the same dist/index.html
// works at / and at /eval/ and under any --public-url.
const tag = document.querySelector('script[data-evalpage-js][data-evalpage-wasm]');
if (!tag) throw new Error('evalpage: loader <script> with data-evalpage-js / data-evalpage-wasm not found');
const { default: init } = await import(tag.dataset.evalpageJs);
const wasm = await init({ module_or_path: tag.dataset.evalpageWasm });
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));
