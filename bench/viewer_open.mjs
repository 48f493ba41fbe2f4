// Viewer benchmark (issue 12): a saved report of N cases (default 100,000,
// a real `evalpage run --provider demo` over the demo questions repeated)
// opened in the viewer in headless Chromium. Prints the report size, the time
// from picking the file until the first table rows show and until the
// summaries (SVG chart) are drawn, the JS heap (sampled, the largest seen),
// the table rows in the DOM at several scroll positions, and the time a
// search takes to show its rows. Numbers only; nothing is asserted.
//
//   node bench/viewer_open.mjs [N]
// (VIEWER_BENCH_DIR=DIR keeps the generated report there between runs.)
// Needs the release builds (scripts/test.sh makes them, or
//   cargo build --release -p evalpage-cli && trunk build --release --offline).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startSite, launch, tmpDir, ROOT, BIN } from '../tests/e2e/helpers.mjs';

const N = Number(process.argv[2] || 100000);
const dir = process.env.VIEWER_BENCH_DIR || tmpDir('viewer-bench');
fs.mkdirSync(dir, { recursive: true });
const demo = fs.readFileSync(path.join(ROOT, 'www/demo/demo_dataset.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const lines = [];
for (let i = 0; i < N; i += 1) lines.push(JSON.stringify({ ...demo[i % demo.length], id: `B${i + 1}` }));
const dataset = path.join(dir, 'bench.jsonl');
fs.writeFileSync(dataset, `${lines.join('\n')}\n`);
let t = Date.now();
const cached = fs.existsSync(path.join(dir, 'out', 'eval_rag_report.json')) && fs.readFileSync(path.join(dir, 'n'), 'utf8') === String(N);
const run = cached ? { status: 0 } : spawnSync(BIN, ['run', '--dataset', dataset, '--provider', 'demo', '--concurrency', '64', '--out', path.join(dir, 'out')], { encoding: 'utf8', maxBuffer: 1 << 30 });
if (run.status !== 0) { console.error(run.stderr); process.exit(1); }
fs.writeFileSync(path.join(dir, 'n'), String(N));
const report = path.join(dir, 'out', 'eval_rag_report.json');
const mb = fs.statSync(report).size / 1e6;
console.log(`report: ${N} cases, ${mb.toFixed(1)} MB (${cached ? 'kept from an earlier run in VIEWER_BENCH_DIR' : `made by evalpage run --provider demo in ${((Date.now() - t) / 1000).toFixed(1)} s`})`);

const site = await startSite();
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const heap = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    return metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
  };
  await page.goto(`${site.url}/?mode=view&lang=en`);
  await page.waitForSelector('[data-testid=open-report]');
  let peak = await heap();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) { try { peak = Math.max(peak, await heap()); } catch { /* page busy */ } await new Promise((r) => setTimeout(r, 100)); }
  })();
  t = Date.now();
  await page.setInputFiles('[data-testid=open-report]', report);
  await page.waitForSelector('[data-testid=case-row]', { timeout: 120000 });
  const firstRows = Date.now() - t;
  await page.waitForSelector('[data-testid=chart-metrics] rect', { timeout: 120000 });
  const summaries = Date.now() - t;
  sampling = false;
  await sampler;
  peak = Math.max(peak, await heap());
  console.log(`open: first rows after ${(firstRows / 1000).toFixed(2)} s, summaries drawn after ${(summaries / 1000).toFixed(2)} s (aim: first rows under 2 s)`);
  console.log(`JS heap: largest sampled ${(peak / 1e6).toFixed(0)} MB (Wasm memory not included)`);
  const wasm = await page.evaluate(() => performance.memory ? performance.memory.totalJSHeapSize : 0);
  if (wasm) console.log(`JS heap total (performance.memory): ${(wasm / 1e6).toFixed(0)} MB`);
  const counts = [];
  for (const frac of [0, 0.1, 0.5, 1]) {
    await page.$eval('.vtable', (el, f) => { el.scrollTop = f * el.scrollHeight; el.dispatchEvent(new Event('scroll')); }, frac);
    await page.waitForTimeout(100);
    counts.push(await page.locator('[data-testid=case-row]').count());
  }
  console.log(`table rows in the DOM while scrolling (top, 10%, 50%, end): ${counts.join(', ')} of ${N}`);
  t = Date.now();
  await page.fill('[data-testid=case-search]', 'B9999');
  await page.waitForFunction(() => document.querySelector('[data-testid=viewer-count]')?.textContent.startsWith('11 /'), null, { timeout: 60000 });
  console.log(`search "B9999" over ${N} rows: ${Date.now() - t} ms until its 11 rows show`);
} finally {
  await browser.close();
  site.stop();
}
