// Takes docs/img/page.png: the RAG check after a run of the built-in demo
// (offline demo model, no endpoint, no key), in headless Chromium.
//
//   trunk build --release --offline   # writes dist/ (scripts/serve.sh and scripts/test.sh do too)
//   node scripts/screenshot.mjs [out.png]
//
// Serves dist/ on a free loopback port with the end-to-end tests' static
// server, uses the system Chromium (CHROMIUM=... to pick another) through
// playwright-core, and downloads nothing. The demo data is Chinese: without a
// CJK font (e.g. Debian's fonts-wqy-microhei) it shows as empty boxes.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDir } from '../tests/e2e/static-server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.resolve(process.argv[2] ?? path.join(ROOT, 'docs/img/page.png'));

const server = await serveDir(path.join(ROOT, 'dist'), 0);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 960, height: 900 } });
  // English, the demo model without its pretend latency.
  await page.goto(`http://127.0.0.1:${server.address().port}/?lang=en&demo_latency=0`);
  await page.click('[data-testid=start]');
  await page.waitForFunction(
    () => document.querySelector('[data-testid=run-status]')?.textContent === 'done', null, { timeout: 60000 });
  // The page at two thirds of its size (960 x 900 pixels), from the top: the header with the mode
  // tabs, the dataset and model panels, the run controls and the metrics. A
  // second for the progress bar to finish its transition.
  await page.evaluate(() => { document.body.style.zoom = '0.67'; window.scrollTo(0, 0); });
  await page.waitForTimeout(1000);
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  server.close();
}
