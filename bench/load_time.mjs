// Load benchmark (issue 20): the release page, served compressed (brotli)
// as a static host serves it, in headless Chromium over a throttled connection (10 Mbit/s down and up, 40 ms round trip, cache
// disabled, through the DevTools protocol), as a first visit feels it.
// Prints, per mode, the time from navigation until Start can be pressed (the
// button is there and enabled with the built-in demo data), the bytes the
// page transferred, and for the viewer the time until the first rows of a
// 1,000-case report show (navigation, then the file picked at once). For the
// run modes it then clicks Start once and prints the time from that click
// until the run is going (its status reads running or done): the run code
// is fetched then (a wasm-split point), still throttled. Each
// figure is the median of RUNS (default 3) fresh loads. ENCODING=gzip serves
// gzip only (a host without brotli). Numbers only.
//
//   node bench/load_time.mjs
// Needs the release builds (scripts/test.sh makes them, or
//   cargo build --release -p evalpage-cli && trunk build --release --offline).
import './release_bin.mjs';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startSite, launch, tmpDir, ROOT, BIN } from '../tests/e2e/helpers.mjs';

const RUNS = Number(process.env.RUNS || 3);
const MBIT = 10; const RTT_MS = 40;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// a 1,000-case report for the viewer, from a real demo run
const dir = tmpDir('load-bench');
const demo = fs.readFileSync(path.join(ROOT, 'www/demo/demo_dataset.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const lines = [];
for (let i = 0; i < 1000; i += 1) lines.push(JSON.stringify({ ...demo[i % demo.length], id: `L${i + 1}` }));
fs.writeFileSync(path.join(dir, 'd.jsonl'), `${lines.join('\n')}\n`);
const run = spawnSync(BIN, ['run', '--dataset', path.join(dir, 'd.jsonl'), '--provider', 'demo', '--concurrency', '64', '--out', path.join(dir, 'out')], { encoding: 'utf8', maxBuffer: 1 << 28 });
if (run.status !== 0) { console.error(run.stderr); process.exit(1); }
const report = path.join(dir, 'out', 'eval_rag_report.json');

// served as a production host serves it: brotli (ENCODING=gzip: a host without brotli)
const ENCODING = process.env.ENCODING === 'gzip' ? 'gzip' : 'br';
const site = await startSite('/', { compress: ENCODING });
const browser = await launch();

/** One fresh, throttled load of `query`; `ready` resolves when the mode is usable. */
async function load(query, ready) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false, latency: RTT_MS, downloadThroughput: (MBIT * 1e6) / 8, uploadThroughput: (MBIT * 1e6) / 8,
  });
  let bytes = 0;
  cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
  const t = Date.now();
  await page.goto(`${site.url}/${query}`);
  await ready(page);
  const ms = Date.now() - t;
  const loaded = bytes;
  let startMs = null;
  if (ready.start) {
    const t0 = Date.now();
    await page.click(`[data-testid=${ready.start}]`);
    await page.waitForFunction(() => ['running', 'done'].includes(document.querySelector('[data-testid=run-status]')?.textContent),
      null, { timeout: 60000 });
    startMs = Date.now() - t0;
  }
  await context.close();
  return { ms, bytes: loaded, startMs };
}

/** Waits until the mode's Start button (`testid`) is there and enabled. */
const startable = (testid) => Object.assign((page) => page.waitForFunction(
  (id) => document.querySelector(`[data-testid=${id}]`)?.disabled === false, testid, { timeout: 60000 }), { start: testid });

const modes = [
  ['RAG check', '?lang=en', startable('start')],
  ['task', '?mode=task&lang=en', startable('start')],
  ['retrieval', '?mode=retrieval&lang=en', startable('retrieval-start')],
  ['dialogs', '?mode=dialog&lang=en', startable('dialog-start')],
  ['viewer, first rows of 1,000 cases', '?mode=view&lang=en', async (page) => {
    await page.waitForSelector('[data-testid=open-report]', { timeout: 60000 });
    await page.setInputFiles('[data-testid=open-report]', report);
    await page.waitForSelector('[data-testid=case-row]', { timeout: 60000 });
  }],
];
try {
  console.log(`throttled: ${MBIT} Mbit/s, ${RTT_MS} ms round trip, cache disabled, served ${ENCODING}; median of ${RUNS} loads`);
  for (const [label, query, ready] of modes) {
    const runs = [];
    for (let i = 0; i < RUNS; i += 1) runs.push(await load(query, ready));
    const ms = median(runs.map((r) => r.ms));
    const kb = median(runs.map((r) => r.bytes)) / 1024;
    const started = ready.start ? `; first Start until running ${(median(runs.map((r) => r.startMs)) / 1000).toFixed(2)} s` : '';
    console.log(`${label}: ${(ms / 1000).toFixed(2)} s until ready, ${kb.toFixed(1)} KB transferred${started}`);
  }
} finally {
  await browser.close();
  site.stop();
}
