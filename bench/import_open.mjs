// Import benchmark (issue 32): big files of other tools (a promptfoo output, an
// Inspect AI log as .json and as .eval) of N samples (default 200,000, made
// by bench/import_big.py from the real tools' fixtures) read by
// `evalpage import` and opened in the viewer in headless Chromium. Prints,
// per file: its size; the CLI's time and peak memory (GNU time's max RSS);
// the page's time from picking the file until the first table rows show (a
// big file's first 2,000 samples) and until every row does, and the browser's
// peak memory (the largest sum of its processes' RSS, sampled
// every 100 ms). Numbers only; nothing is asserted.
//
//   node bench/import_open.mjs [N]
// (IMPORT_BENCH_DIR=DIR keeps the generated files there between runs.)
// Needs the release builds (scripts/test.sh makes them, or
//   cargo build --release -p evalpage-cli && trunk build --release --offline).
import './release_bin.mjs';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startSite, launch, tmpDir, ROOT, BIN } from '../tests/e2e/helpers.mjs';

const N = Number(process.argv[2] || 200000);
const dir = process.env.IMPORT_BENCH_DIR || tmpDir('import-bench');
const files = [`promptfoo_${N}.json`, `inspect_${N}.json`, `inspect_${N}.eval`].map((f) => path.join(dir, f));
if (!files.every((f) => fs.existsSync(f))) {
  const made = spawnSync('python3', [path.join(ROOT, 'bench/import_big.py'), dir, String(N)], { encoding: 'utf8' });
  if (made.status !== 0) { console.error(made.stderr); process.exit(1); }
}

/** The summed RSS of the browser's processes, in MB. */
function browserRss() {
  let kb = 0;
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes('chrom')) continue;
      const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch { /* gone */ }
  }
  return kb / 1024;
}

const site = await startSite();
try {
  for (const file of files) {
    const name = path.basename(file);
    const mb = fs.statSync(file).size / 1e6;
    const out = path.join(dir, `out-${name}`);
    const cli = spawnSync('/usr/bin/time', ['-f', '%e %M', BIN, 'import', file, '--out', out], { encoding: 'utf8' });
    const [secs, kb] = cli.stderr.trim().split('\n').pop().split(' ').map(Number);
    const browser = await launch();
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${site.url}/?mode=view&lang=en`);
    await page.waitForSelector('[data-testid=open-report]');
    let peak = browserRss();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) { peak = Math.max(peak, browserRss()); await new Promise((r) => setTimeout(r, 100)); }
    })();
    // The page's own clock, from the pick until each table the page shows
    // (a MutationObserver: Playwright's polling waits while the page is busy).
    await page.evaluate(() => {
      window.__t0 = performance.now();
      window.__marks = [];
      new MutationObserver(() => {
        const n = document.querySelector('[data-testid=viewer-summary] p.muted')?.textContent.split(' ')[0];
        if (n && window.__marks.at(-1)?.[1] !== n) window.__marks.push([performance.now() - window.__t0, n]);
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    await page.setInputFiles('[data-testid=open-report]', file);
    await page.waitForFunction((n) => document.querySelector('[data-testid=viewer-summary] p.muted')?.textContent.startsWith(`${n} rows`), N, { timeout: 600000 });
    const marks = await page.evaluate(() => window.__marks);
    const [firstAt, first] = marks[0];
    const allRows = marks.at(-1)[0] / 1000;
    const firstRows = firstAt / 1000;
    sampling = false;
    await sampler;
    console.log(`${name}: ${mb.toFixed(1)} MB, ${N} samples`);
    console.log(`  evalpage import: ${secs.toFixed(2)} s, peak ${(kb / 1024).toFixed(0)} MB`);
    console.log(`  viewer: first rows after ${firstRows.toFixed(1)} s (${first} rows), all ${N} rows after ${allRows.toFixed(1)} s, browser peak ${peak.toFixed(0)} MB`);
    await browser.close();
  }
} finally {
  site.stop();
}
