// The model file on this device (本机模型文件): a GGUF file the user picks,
// run inside the page by llama.cpp compiled to WebAssembly (@wllama/wllama
// 3.13.0, copied under vendor/wllama/ with its licence by
// scripts/post_build.sh). This module and the engine are fetched only when a
// model file is picked (init.js's `evalpageLocalModel`): no mode's first load
// carries them. Nothing leaves the page: the file is read from disk, the
// engine and its .wasm come from this page's own origin (wllama's CDN
// fallback for browsers that lack a feature is switched off), and the engine
// runs in its own Web Worker.
//
// The page (src/effects/local_model.rs) calls:
//   load(file, nCtx, threads)
//                       -> what the report says of the model (JSON text);
//                          `threads` is the setting: 0 for auto (see
//                          threadsFor), else the number asked
//   chat(body, signal)  -> the OpenAI-shaped answer (JSON text) to one chat
//                          completion request body (JSON text)
// A failure rejects with an Error that says what went wrong.

let engine = null;
let described = null;
// Why the engine stopped under a run (its worker died or aborted), until a
// file is loaded again; and what fails the generation waiting on it then.
let stopped = null;
let died = null;

// A stopped engine: every later request fails at once with this error, its
// `name` what the page reads as the run's end (src/effects/local_model.rs).
class EngineStopped extends Error {
  constructor(why) { super(why); this.name = 'EngineStopped'; }
}

// Watches the engine's worker: an error there (it crashed, or its code
// aborted) fails the generation waiting on it instead of leaving it waiting.
function watch(w) {
  let fail = () => {};
  const promise = new Promise((_, reject) => { fail = reject; });
  promise.catch(() => {});
  // wllama keeps its worker in `proxy.worker` (3.x).
  w.proxy?.worker?.addEventListener('error', (ev) => {
    ev.preventDefault?.();
    fail(new Error(`the engine's worker stopped: ${ev.message || 'an error in the worker'}`));
  });
  return { promise, fail };
}

async function stop(why) {
  stopped = why;
  const old = engine;
  engine = null;
  died = null;
  try { await old?.exit(); } catch { /* already gone */ }
}

// Chat templates (Jinja, as the engine reads them) by the model family's
// turn format, for a file that carries no `tokenizer.chat_template`: without
// one llama.cpp falls back to ChatML, which a Gemma answers with `<|im_end|>`
// noise. A system message goes first into the first user turn, as Gemma's
// own template does. A request with tools offers them in the first user turn
// in Hermes' format (`<tools>`, then `<tool_call>` JSON), the one most open
// models are trained on; the engine knows a template by its `<tool_call>`,
// then parses the answer's calls into OpenAI's `tool_calls`. The assistant's
// earlier calls and the tools' results are written back the same way, so an
// agent's loop reads as one conversation.
const GEMMA = "{{ bos_token }}{% set ns = namespace(prefix='') %}"
  + "{% if tools %}{% set ns.prefix = 'You can call these functions, each given in JSON Schema within <tools></tools> tags:\\n<tools>\\n' %}"
  + "{% for t in tools %}{% set ns.prefix = ns.prefix + (t | tojson) + '\\n' %}{% endfor %}"
  + "{% set ns.prefix = ns.prefix + '</tools>\\nTo call a function, answer with a JSON object of its name and arguments within <tool_call></tool_call> tags:\\n"
  + "<tool_call>\\n{\\\"name\\\": <function-name>, \\\"arguments\\\": <args-json-object>}\\n</tool_call>\\n\\n' %}{% endif %}"
  + "{% for m in messages %}{% if m['role'] == 'system' %}{% set ns.prefix = ns.prefix + m['content'] + '\\n\\n' %}"
  + "{% else %}{{ '<start_of_turn>' + ('model' if m['role'] == 'assistant' else 'user') + '\\n' }}"
  + "{% if m['role'] == 'user' %}{{ ns.prefix }}{% set ns.prefix = '' %}{% endif %}"
  + "{% if m['role'] == 'tool' %}{{ '<tool_response>\\n' + m['content'] + '\\n</tool_response>' }}"
  + "{% elif m['role'] == 'assistant' and m['tool_calls'] %}{% for c in m['tool_calls'] %}"
  + "{{ '<tool_call>\\n' + ({'name': c['function']['name'], 'arguments': c['function']['arguments']} | tojson) + '\\n</tool_call>\\n' }}{% endfor %}"
  + "{% else %}{{ m['content'] | trim }}{% endif %}{{ '<end_of_turn>\\n' }}{% endif %}{% endfor %}"
  + "{% if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{% endif %}";
const LLAMA3 = "{{ bos_token }}{% for m in messages %}"
  + "{{ '<|start_header_id|>' + m['role'] + '<|end_header_id|>\n\n' + (m['content'] | trim) + '<|eot_id|>' }}{% endfor %}"
  + "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}";
export const TEMPLATE_OF_ARCH = {
  gemma: ['Gemma', GEMMA], gemma2: ['Gemma', GEMMA], gemma3: ['Gemma', GEMMA], gemma3n: ['Gemma', GEMMA],
  llama: ['Llama 3', LLAMA3],
};

// `general.file_type` as llama.cpp names it (llama_ftype).
const FILE_TYPES = {
  0: 'F32', 1: 'F16', 2: 'Q4_0', 3: 'Q4_1', 7: 'Q8_0', 8: 'Q5_0', 9: 'Q5_1', 10: 'Q2_K', 11: 'Q3_K_S',
  12: 'Q3_K_M', 13: 'Q3_K_L', 14: 'Q4_K_S', 15: 'Q4_K_M', 16: 'Q5_K_S', 17: 'Q5_K_M', 18: 'Q6_K',
  19: 'IQ2_XXS', 20: 'IQ2_XS', 21: 'Q2_K_S', 22: 'IQ3_XS', 23: 'IQ3_XXS', 24: 'IQ1_S', 25: 'IQ4_NL',
  26: 'IQ3_S', 27: 'IQ3_M', 28: 'IQ2_S', 29: 'IQ2_M', 30: 'IQ4_XS', 31: 'IQ1_M', 32: 'BF16',
};

// What the file says of itself before the engine loads it: the GGUF header's
// key-value pairs (GGUF v2 and v3, little-endian), read a slice at a time.
// Only `general.architecture`, `general.file_type` and whether
// `tokenizer.chat_template` is there are kept; arrays (the vocabulary) are
// skipped over without being decoded.
async function ggufHead(file) {
  let buf = new Uint8Array(0); let off = 0; let base = 0;
  const need = async (n) => {
    while (off + n > buf.length) {
      if (base + buf.length >= file.size) throw new Error(`${file.name}: the GGUF header is cut off`);
      const more = new Uint8Array(await file.slice(base + buf.length, base + buf.length + (8 << 20)).arrayBuffer());
      const keep = buf.subarray(off);
      const next = new Uint8Array(keep.length + more.length);
      next.set(keep); next.set(more, keep.length);
      base += off; buf = next; off = 0;
    }
  };
  const view = () => new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const u32 = async () => { await need(4); const v = view().getUint32(off, true); off += 4; return v; };
  const u64 = async () => { await need(8); const v = view().getBigUint64(off, true); off += 8; return Number(v); };
  const str = async () => { const n = await u64(); await need(n); const s = new TextDecoder().decode(buf.subarray(off, off + n)); off += n; return s; };
  const SIZES = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
  const skip = async (type) => {
    if (type === 8) { const n = await u64(); await need(n); off += n; return; }
    if (type === 9) {
      const t = await u32(); const count = await u64();
      if (SIZES[t]) { const n = SIZES[t] * count; await need(n); off += n; return; }
      for (let i = 0; i < count; i++) await skip(t);
      return;
    }
    const n = SIZES[type];
    if (!n) throw new Error(`${file.name}: unknown GGUF value type ${type}`);
    await need(n); off += n;
  };
  await need(4);
  if (String.fromCharCode(...buf.subarray(0, 4)) !== 'GGUF') {
    throw new Error(`${file.name}: not a GGUF file (it does not start with the bytes "GGUF")`);
  }
  off = 4;
  const version = await u32();
  if (version < 2 || version > 3) throw new Error(`${file.name}: GGUF version ${version}; versions 2 and 3 are read`);
  await u64(); // tensors
  const kvs = await u64();
  const head = { version, architecture: '', file_type: null, chat_template: false };
  for (let i = 0; i < kvs; i++) {
    const key = await str();
    const type = await u32();
    if (key === 'general.architecture' && type === 8) head.architecture = await str();
    else if (key === 'general.file_type' && type === 4) head.file_type = await u32();
    else { if (key === 'tokenizer.chat_template') head.chat_template = true; await skip(type); }
  }
  return head;
}

// Tokens a request that names no max_tokens may generate: without a bound a
// small model can run on to the end of its context (minutes on a CPU).
const DEFAULT_MAX_TOKENS = 512;

// The engine reads a file as one ArrayBuffer, which a browser caps at 2 GiB.
const MAX_FILE = 2 ** 31 - 1;

// What the engine's build needs of the browser: JSPI (WebAssembly.Suspending,
// to read the file in slices) and 64-bit WebAssembly memory. A browser without
// them (Firefox, Safari today) would need wllama's compat build from its CDN,
// which this page does not fetch.
// WebAssembly SIMD (128-bit): the engine's build needs it; said on the device card.
function simd() {
  try {
    return WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]));
  } catch {
    return false;
  }
}

function missingFeatures() {
  const missing = [];
  if (typeof WebAssembly.Suspending !== 'function') missing.push('WebAssembly JSPI (WebAssembly.Suspending)');
  try {
    new WebAssembly.Memory({ address: 'i64', initial: 1n });
  } catch {
    missing.push('64-bit WebAssembly memory');
  }
  return missing;
}

// The threads the engine is given. A browser reports logical CPUs
// (`navigator.hardwareConcurrency`), twice the cores on a machine with
// hyper-threading, and one engine thread more than there are cores collapses
// decoding (measured on 2 cores: 2 threads 20.4 tokens/s, 3 threads 0.5; with
// every logical CPU of a 16-core/32-thread machine, 0.43 against 57.5 on 16).
// So auto asks for every logical CPU up to 2 and half of them above 2 (never
// more than the cores, with or without hyper-threading); a number set by the
// user is taken, up to the logical CPUs. Without cross-origin isolation the
// engine has one thread whatever is asked (no SharedArrayBuffer).
export function autoThreads(logical) {
  const n = Math.max(1, Math.floor(Number(logical) || 1));
  return n <= 2 ? n : Math.floor(n / 2);
}

export function threadsFor(logical, isolated, asked) {
  if (!isolated) return 1;
  const n = Math.max(1, Math.floor(Number(logical) || 1));
  const set = Math.floor(Number(asked) || 0);
  return set >= 1 ? Math.min(set, n) : autoThreads(n);
}

// What the engine's native log says of where the layers run: llama.cpp's
// "offloaded N/M layers to GPU" and the WebGPU device it registered.
function offloadOf(lines) {
  let layers = null;
  for (const l of lines) {
    const m = /offloaded (\d+)\/(\d+) layers to GPU/.exec(l);
    if (m) layers = { offloaded: Number(m[1]), total: Number(m[2]) };
  }
  return layers;
}

// The browser's WebGPU adapter, if any: its name, and whether it has
// `shader-f16`, which llama.cpp's WebGPU backend needs (without it the engine
// registers no GPU device and keeps every layer on the CPU).
async function adapterInfo() {
  try {
    const a = await navigator.gpu?.requestAdapter();
    if (!a) return null;
    const i = a.info || {};
    const name = [i.vendor, i.architecture, i.device, i.description].filter((x) => x).join(' ') || 'a WebGPU adapter';
    return { name, f16: !!a.features?.has('shader-f16') };
  } catch {
    return null;
  }
}

// Loads `file` into a new engine on `threads` threads, on the GPU (every
// layer, when the browser has a WebGPU adapter) or on the CPU only, and asks
// it one token: an engine that loads a file it cannot run aborts there.
// Resolves to the engine and the native log's lines.
async function start(file, head, params, gpu) {
  const base = new URL('./vendor/wllama/', import.meta.url).href;
  const { Wllama } = await import(base + 'wllama.js');
  const lines = [];
  const keep = (...a) => { lines.push(a.join(' ')); };
  const logger = { debug: () => {}, log: keep, warn: keep, error: keep };
  const w = new Wllama({ default: base + 'wllama.wasm' }, { suppressNativeLog: false, logger });
  w.setCompat(null);
  const started = performance.now();
  try {
    await w.loadModel([file], { ...params, n_gpu_layers: gpu ? 99999 : 0, log_level: 2 });
  } catch (e) {
    try { await w.exit(); } catch { /* not started */ }
    const why = e?.message || String(e);
    if (/unknown model architecture/i.test(why)) {
      throw new Error(`${file.name}: this engine does not know the architecture "${head.architecture}" (${why})`);
    }
    if (e instanceof RangeError || /memory|allocat/i.test(why)) {
      throw new Error(`${file.name}: out of memory while loading (${file.size} bytes): ${why}`);
    }
    throw new Error(`${file.name}: the engine could not load it: ${why}`);
  }
  const loadMs = Math.round(performance.now() - started);
  try {
    await w.createChatCompletion({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1, temperature: 0 });
  } catch (e) {
    try { await w.exit(); } catch { /* already gone */ }
    throw new Error(`${file.name}: this engine cannot run the architecture "${head.architecture}" (it stopped at the first token: ${e?.message || e})`);
  }
  return { w, Wllama, lines, loadMs };
}

export async function load(file, nCtx, asked) {
  const head = await ggufHead(file);
  const missing = missingFeatures();
  if (missing.length) {
    throw new Error(`this browser lacks what the engine needs to run a model file: ${missing.join(' and ')}; use a recent Chrome or Edge (137 or later)`);
  }
  if (file.size > MAX_FILE) {
    throw new Error(`${file.name}: ${file.size} bytes is larger than the browser can hold as one file for the engine (2 GiB); use a smaller quantisation, or split it with llama-gguf-split`);
  }
  if (engine) {
    const old = engine;
    engine = null;
    described = null;
    await old.exit();
  }
  const logical = navigator.hardwareConcurrency || 1;
  const isolated = !!self.crossOriginIsolated;
  const threads = threadsFor(logical, isolated, asked);
  const builtin = head.chat_template ? null : TEMPLATE_OF_ARCH[head.architecture] || null;
  const params = { n_ctx: nCtx, n_threads: threads, n_parallel: 1 };
  if (builtin) params.chat_template = builtin[1];
  // The GPU when the browser gives an adapter the engine can use; a load or a
  // first token that fails there is tried again on the CPU, with a note
  // (never a broken run).
  const adapter = typeof navigator.gpu === 'object' ? await adapterInfo() : null;
  let gpuNote = null;
  let started;
  if (adapter && !adapter.f16) {
    gpuNote = `the WebGPU adapter (${adapter.name}) lacks shader-f16, which the engine's WebGPU backend needs, so the model runs on the CPU`;
  } else if (adapter) {
    try {
      started = await start(file, head, params, true);
    } catch (e) {
      gpuNote = `the GPU path (${adapter.name}) failed, so the model runs on the CPU: ${e?.message || e}`;
    }
  }
  started ??= await start(file, head, params, false);
  const { w, Wllama, lines, loadMs } = started;
  const offload = offloadOf(lines);
  const onGpu = !!adapter && !gpuNote && !!offload && offload.offloaded > 0;
  const ctx = w.getLoadedContextInfo();
  const meta = w.getModelMetadata().meta;
  engine = w;
  stopped = null;
  died = watch(w);
  described = {
    engine: 'llama.cpp (@wllama/wllama)',
    engine_version: typeof Wllama.getLibllamaVersion === 'function' ? Wllama.getLibllamaVersion() : '',
    file: file.name,
    size_bytes: file.size,
    architecture: head.architecture,
    name: meta['general.name'] || '',
    quantisation: FILE_TYPES[head.file_type] ?? String(head.file_type ?? ''),
    context_train: ctx.n_ctx_train,
    context: ctx.n_ctx,
    threads: w.getNumThreads(),
    threads_asked: Math.floor(Number(asked) || 0) >= 1 ? String(Math.floor(Number(asked))) : 'auto',
    logical_cpus: logical,
    multithread: w.isMultithread(),
    cross_origin_isolated: isolated,
    simd: simd(),
    webgpu: onGpu,
    webgpu_adapter: onGpu ? adapter.name : '',
    gpu_layers: offload ? `${offload.offloaded}/${offload.total}` : '',
    gpu_note: gpuNote ?? (adapter && !onGpu ? `a WebGPU adapter (${adapter.name}) is there, but the engine kept every layer on the CPU` : ''),
    chat_template: head.chat_template ? 'the file\'s own' : builtin ? `${builtin[0]} turns (the file has none)` : 'ChatML (the file has none)',
    load_ms: loadMs,
    default_max_tokens: DEFAULT_MAX_TOKENS,
  };
  return JSON.stringify(described);
}

// One generation at a time: a model of the list and a judge may both be this
// file, and the engine answers one request at a time.
let queue = Promise.resolve();

export function chat(body, signal) {
  const turn = queue.then(() => answer(body, signal));
  queue = turn.catch(() => {});
  return turn;
}

async function answer(body, signal) {
  if (stopped) throw new EngineStopped(stopped);
  if (!engine) throw new Error('no model file is loaded');
  if (signal?.aborted) throw new DOMException('cancelled', 'AbortError');
  const req = JSON.parse(body);
  const params = { messages: req.messages, stream: false, abortSignal: signal };
  // the task's tools go to the engine as to an endpoint: it offers them
  // through the chat template (the file's own, or the Gemma turns above) and
  // reads the calls back into `tool_calls`
  for (const k of ['temperature', 'top_p', 'max_tokens', 'seed', 'stop', 'presence_penalty', 'frequency_penalty',
    'tools', 'tool_choice', 'parallel_tool_calls']) {
    if (req[k] !== undefined && req[k] !== null) params[k] = req[k];
  }
  if (params.max_tokens === undefined) params.max_tokens = DEFAULT_MAX_TOKENS;
  let answered;
  try {
    answered = await Promise.race([engine.createChatCompletion(params), died.promise]);
  } catch (e) {
    if (signal?.aborted || e?.name === 'AbortError') throw e;
    // The worker died or its code aborted (wllama's RuntimeError rejects
    // everything waiting on it): nothing more will come from this engine.
    if (e?.name === 'RuntimeError' || /worker stopped/.test(e?.message || '')) {
      await stop(e.message || String(e));
      throw new EngineStopped(stopped);
    }
    throw e;
  }
  answered.model = described.file;
  return JSON.stringify(answered);
}

// The model file at `url` (same origin, or a host that allows CORS), from
// this browser's Cache Storage when it was fetched before, else fetched once
// and kept there: a second visit does not download it again. The File handed
// back is backed by the stored copy, not held in memory.
export async function fromUrl(url) {
  const abs = new URL(url, location.href);
  const name = decodeURIComponent(abs.pathname.split('/').pop() || '') || 'model.gguf';
  let cache = null;
  try {
    cache = await caches.open('evalpage-models');
  } catch {
    // No Cache Storage (not a secure context): fetched every time.
  }
  let hit = cache ? await cache.match(abs.href) : undefined;
  const cached = !!hit;
  if (!hit) {
    let res;
    try {
      res = await fetch(abs.href, { mode: 'cors', credentials: 'omit' });
    } catch (e) {
      throw new Error(`${abs.href}: could not be fetched (${e?.message || e}); a file on another host must allow CORS`);
    }
    if (!res.ok) throw new Error(`${abs.href}: the server answered HTTP ${res.status}`);
    if (cache) {
      try {
        await cache.put(abs.href, res);
      } catch (e) {
        const full = e?.name === 'QuotaExceededError';
        throw new Error(full
          ? `${name}: larger than this browser lets the page keep (${e.message}); pick the file from disk instead`
          : `${abs.href}: could not be downloaded and kept (${e?.name || 'Error'}: ${e?.message || e})`);
      }
      hit = await cache.match(abs.href);
    } else {
      hit = res;
    }
  }
  const blob = await hit.blob();
  return { file: new File([blob], name, { type: 'application/octet-stream' }), cached };
}
