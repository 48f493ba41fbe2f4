// End-to-end: the RAG check's cost cap in the page against `evalpage
// mock-server`: with prices and a cap typed in, the run stops once its priced
// usage reaches the cap; the calls in flight finish, the rest are not run, and
// the page and the report say it stopped at its cost cap.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startMock, startSite, launch, newPage, waitStatus, download, useEndpoint,
} from './helpers.mjs';

let site; let mock; let browser;
before(async () => { site = await startSite(); mock = await startMock(['--latency-ms', '20']); browser = await launch(); });
after(async () => { await browser?.close(); mock?.stop(); site?.stop(); });

test('a cost cap stops the run within one wave and says why', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?lang=en&concurrency=2`);
  await useEndpoint(page, mock.url);
  await page.fill('[data-testid=price-in]', '1000');
  await page.fill('[data-testid=price-out]', '1000');
  await page.fill('[data-testid=max-cost]', '0.3');
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.match(await page.textContent('[data-testid=stopped]'), /stopped at its cost cap: the run reached its cost cap/);
  const report = JSON.parse((await download(page, 'download-report')).text);
  const notRun = report.metrics.not_run_cases;
  assert.ok(notRun > 0 && notRun < 10, `some cases not run: ${notRun}`);
  const usage = report.report.usage[0];
  assert.ok(usage.cost >= 0.3, `${usage.cost}`);
  // At most the calls in flight (2) past the cap, each at most twice the mean answer's cost.
  assert.ok(usage.cost <= 0.3 + 2 * 2 * (usage.cost / usage.answered), `${usage.cost}`);
  const md = (await download(page, 'download-md')).text;
  assert.match(md, /The run stopped at its cost cap/);
  assert.deepEqual(errors, []);
});
