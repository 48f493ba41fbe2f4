// Browser half of bench/runner_overhead.sh: loads the dataset through the file
// input, runs against the given endpoint and times Start -> done; then sends the
// very requests the run sent (recorded as it went) again from the same page with a
// bare `fetch` loop at the same concurrency, and prints the page's time against
// that loop's (the runner's own cost: journal, cache, budget, rendering). With CACHE=1
// the run uses *Reuse answers from earlier runs* (storing every answer), then
// runs again from the cache alone (every answer a hit, no request).
import { startSite, launch, newPage, waitStatus, useEndpoint } from '../tests/e2e/helpers.mjs';

const [url, dataset, n, c, latencyMs] = process.argv.slice(2);
const site = await startSite();
const browser = await launch();
try {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en&concurrency=${c}`);
  await useEndpoint(page, url);
  await page.setInputFiles('[data-testid=dataset-file]', dataset);
  await page.waitForFunction((k) => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes(k), `${n} valid`);
  const cache = process.env.CACHE === '1';
  if (cache) await page.check('[data-testid=reuse-answers]');
  const sent = [];
  const record = (r) => { if (r.method() === 'POST' && r.url().startsWith(url)) sent.push([r.url(), r.postData()]); };
  page.on('request', record);
  const t0 = Date.now();
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done', 600000);
  const wall = (Date.now() - t0) / 1000;
  const ideal = (Number(n) * Number(latencyMs)) / 1000 / Math.min(Number(c), 6);
  const progress = await page.textContent('[data-testid=progress]');
  console.log(`browser${cache ? ' (cache on, storing)' : ''}: ${n} cases (${progress}), concurrency ${c} (browser opens at most 6), wall ${wall.toFixed(2)} s, ideal ${ideal.toFixed(2)} s, ratio ${(wall / ideal).toFixed(2)}`);
  page.off('request', record);
  if (!cache) {
    const bare = await page.evaluate(async ({ requests, workers }) => {
      let next = 0;
      const one = async () => {
        while (next < requests.length) {
          const [to, body] = requests[next++];
          const r = await fetch(to, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          await r.json();
        }
      };
      const t = performance.now();
      await Promise.all(Array.from({ length: workers }, one));
      return (performance.now() - t) / 1000;
    }, { requests: sent, workers: Number(c) });
    console.log(`browser bare fetch loop of the same ${sent.length} requests, concurrency ${c}: wall ${bare.toFixed(2)} s; the page takes ${(wall / bare).toFixed(2)}x the bare loop`);
  }
  if (cache) {
    const t1 = Date.now();
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done', 600000);
    const hits = (Date.now() - t1) / 1000;
    console.log(`browser (cache on, every answer a hit): ${n} cases, wall ${hits.toFixed(2)} s, ${(hits * 1000 / Number(n)).toFixed(2)} ms per case, lookup included`);
  }
} finally {
  await browser.close();
  site.stop();
}
