// Where the in-page model's time goes: prompt and decode tokens/s of the page's
// engine (wllama, cross-origin isolated as scripts/serve.sh serves the page, on
// every core) against llama.cpp's native server on the same cores, for each
// GGUF file given and for each engine setting below.
//   node bench/local_speed.mjs a.gguf [b.gguf ...]   (after a trunk build)
// With no file: the test model (scripts/test_model.sh). Each figure is the
// median of RUNS (3) greedy generations of DECODE (64) tokens after a prompt of
// about 150 tokens, timed by each engine itself (llama.cpp's `timings`).
// Settings: SETTINGS=default,flash,ubatch128,kvq8 (the names below) picks some.
// PROMPT=short asks with a prompt of a few tokens (decode with almost no context).
import './release_bin.mjs';
import os from 'node:os';
import path from 'node:path';
import { startSite, launch, newPage } from '../tests/e2e/helpers.mjs';
import { sh, startLlamaServer } from './llama.mjs';

const CORES = os.cpus().length;
const RUNS = Number(process.env.RUNS || 3);
const DECODE = Number(process.env.DECODE || 64);
const files = process.argv.slice(2).length ? process.argv.slice(2) : [process.env.EVALPAGE_GGUF || sh('scripts/test_model.sh')];
const server = sh('bench/llama_server.sh');

// The engine settings tried in the page (wllama's loadModel parameters).
const ALL = {
  default: {},
  flash: { flash_attn: true },
  ubatch128: { n_batch: 128, n_ubatch: 128 },
  ubatch2048: { n_batch: 2048, n_ubatch: 2048 },
  kvq8: { flash_attn: true, cache_type_k: 'q8_0', cache_type_v: 'q8_0' },
  kvf32: { cache_type_k: 'f32', cache_type_v: 'f32' },
  flashkvf32: { flash_attn: true, cache_type_k: 'f32', cache_type_v: 'f32' },
  threads1: { n_threads: 1 },
};
const SETTINGS = (process.env.SETTINGS || Object.keys(ALL).join(',')).split(',');

// A prompt of about 150 tokens: the demo's kind of question with its context.
// PROMPT=short: a prompt of a few tokens instead (decode with almost no context).
const LONG = 'Answer from the context only, citing it. Context: [1] The Eiffel Tower was completed in 1889 for the World\'s Fair in Paris and is about 330 metres tall. [2] The Louvre, once a royal palace, became a museum in 1793 and holds the Mona Lisa. [3] The Seine runs through Paris for 13 kilometres and is crossed by 37 bridges. [4] Notre-Dame de Paris was damaged by fire in April 2019 and reopened in December 2024 after restoration. Question: when was the Eiffel Tower completed, how tall is it, and which museum holds the Mona Lisa? Give each fact with its source number.';
const PROMPT = process.env.PROMPT === 'short' ? 'Say hello.' : LONG;
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
// The medians of a list of llama.cpp `timings`.
const speeds = (runs) => ({ prompt: median(runs.map((t) => t.prompt_per_second)), decode: median(runs.map((t) => t.predicted_per_second)) });
const f = (x) => (typeof x === 'number' ? x.toFixed(1) : '-');

async function inPage(file, params) {
  const site = await startSite('/', { isolated: true });
  const browser = await launch();
  try {
    const page = await newPage(browser, []);
    await page.goto(`${site.url}/?lang=en`);
    await page.evaluate(() => { const i = document.createElement('input'); i.type = 'file'; i.id = 'bench-file'; document.body.append(i); });
    await page.setInputFiles('#bench-file', file);
    return await page.evaluate(async ({ params, threads, runs, decode, prompt }) => {
      const base = new URL('./vendor/wllama/', location.href).href;
      const { Wllama } = await import(base + 'wllama.js');
      const w = new Wllama({ default: base + 'wllama.wasm' }, { suppressNativeLog: true });
      w.setCompat(null);
      await w.loadModel([document.getElementById('bench-file').files[0]],
        { n_ctx: 2048, n_threads: threads, n_parallel: 1, n_gpu_layers: 0, ...params });
      // Each run's prompt starts differently, so no run reuses the last one's cache.
      const out = [];
      for (let i = 0; i < runs; i++) {
        const r = await w.createChatCompletion({ messages: [{ role: 'user', content: `Run ${i + 1}. ${prompt}` }], max_tokens: decode, temperature: 0 });
        out.push(r.timings);
      }
      await w.exit();
      return out;
    }, { params, threads: CORES, runs: RUNS, decode: DECODE, prompt: PROMPT });
  } finally {
    await browser.close();
    site.stop();
  }
}

async function native(file) {
  const srv = await startLlamaServer(server, ['-m', file, '-c', '2048', '-np', '1', '-t', String(CORES), '-tb', String(CORES)]);
  try {
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await fetch(`${srv.url}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: `Run ${i + 1}. ${PROMPT}` }], max_tokens: DECODE, temperature: 0, cache_prompt: false }),
      }).then((x) => x.json());
      runs.push(r.timings);
    }
    return speeds(runs);
  } finally {
    srv.stop();
  }
}

console.log(`${CORES} cores · ${DECODE} decoded tokens · median of ${RUNS} · greedy`);
console.log('| file | engine | setting | prompt tokens/s | decode tokens/s | decode / native |');
console.log('|---|---|---|---|---|---|');
for (const file of files) {
  const n = await native(file);
  console.log(`| ${path.basename(file)} | llama-server (native) | default | ${f(n.prompt)} | ${f(n.decode)} | 100% |`);
  for (const name of SETTINGS) {
    const { prompt, decode } = speeds(await inPage(file, ALL[name]));
    console.log(`| ${path.basename(file)} | page (wllama) | ${name} | ${f(prompt)} | ${f(decode)} | ${f((decode / n.decode) * 100)}% |`);
  }
}
