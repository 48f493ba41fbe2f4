// Browser half of bench/runner_overhead.sh: loads the dataset through the file
// input, runs against the given endpoint and times Start -> done; then sends the
// very requests the run sent (recorded as it went) again from the same page with a
// bare `fetch` loop at the same concurrency, and prints the page's time against
// that loop's (the runner's own cost: journal, cache, budget, rendering). With CACHE=1
// the run uses *Reuse answers from earlier runs* (storing every answer), then
// runs again from the cache alone (every answer a hit, no request).
import './release_bin.mjs';
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
  let firstAt = null; let lastAt = null;
  const ours = (r) => r.method() === 'POST' && r.url().startsWith(url);
  const record = (r) => {
    if (!ours(r)) return;
    sent.push([r.url(), r.postData()]);
    firstAt ??= Date.now();
  };
  const answered = (r) => { if (ours(r)) lastAt = Date.now(); };
  page.on('request', record);
  page.on('requestfinished', answered);
  // The page's own clock, as the bare loop below is timed: from the click on
  // Start (the event, in the page) to the status turning `done`. The times
  // seen from here also count Playwright's click (its actionability checks)
  // and its polling for the status, which the bare loop does not pay.
  await page.evaluate(() => {
    const t = { click: null, done: null };
    window.__overhead = t;
    document.addEventListener('click', (e) => {
      if (e.target.closest('[data-testid=start]')) t.click ??= performance.now();
    }, true);
    let el = document.querySelector('[data-testid=run-status]');
    new MutationObserver(() => {
      if (!el?.isConnected) el = document.querySelector('[data-testid=run-status]');
      if (t.click !== null && el?.textContent === 'done') t.done ??= performance.now();
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
  const t0 = Date.now();
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done', 600000);
  const t1 = Date.now();
  const wall = (t1 - t0) / 1000;
  const ideal = (Number(n) * Number(latencyMs)) / 1000 / Math.min(Number(c), 6);
  const progress = await page.textContent('[data-testid=progress]');
  console.log(`browser${cache ? ' (cache on, storing)' : ''}: ${n} cases (${progress}), concurrency ${c} (browser opens at most 6), wall ${wall.toFixed(2)} s, ideal ${ideal.toFixed(2)} s, ratio ${(wall / ideal).toFixed(2)}`);
  page.off('request', record);
  page.off('requestfinished', answered);
  if (firstAt !== null && lastAt !== null) {
    // Where the page's time goes: before its first request (prepare, storage),
    // between its first request and its last answer (per case), after it (the
    // end of the run: the files rendered, the last write, the last render).
    console.log(`browser phases: click -> first request ${firstAt - t0} ms; first request -> last answer ${((lastAt - firstAt) / 1000).toFixed(2)} s; last answer -> done ${t1 - lastAt} ms`);
  }
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
    const middle = (lastAt - firstAt) / 1000;
    const own = await page.evaluate(() => (window.__overhead.done - window.__overhead.click) / 1000);
    console.log(`browser bare fetch loop of the same ${sent.length} requests, concurrency ${c}: wall ${bare.toFixed(2)} s; the page, click to done on its own clock, ${own.toFixed(2)} s: the page takes ${(own / bare).toFixed(2)}x the bare loop, ${((own - bare) * 1000 / Number(n)).toFixed(2)} ms per case more (seen from Playwright ${(wall / bare).toFixed(2)}x; ${(middle / bare).toFixed(2)}x from its first request to its last answer)`);
  }
  if (cache) {
    const t2 = Date.now();
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done', 600000);
    const hits = (Date.now() - t2) / 1000;
    console.log(`browser (cache on, every answer a hit): ${n} cases, wall ${hits.toFixed(2)} s, ${(hits * 1000 / Number(n)).toFixed(2)} ms per case, lookup included`);
  }
} finally {
  await browser.close();
  site.stop();
}
