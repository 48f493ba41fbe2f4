// End-to-end: dist/ served under a sub-path of a static host, as GitHub Pages
// or a bucket serves it: the page at /some/sub/path/ and at its eval/ folder
// (spec 002's address), each also asked for without the trailing slash (the
// host redirects). The RAG demo runs, task mode runs, the retrieval demo runs
// and the viewer opens the RAG run's report, with no failed request, no 4xx/5xx
// response and no page error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startSite, launch, newPage, waitStatus, download, tmpDir } from './helpers.mjs';

const PREFIX = '/some/sub/path/';
let site; let browser;

before(async () => { site = await startSite(PREFIX); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

/** A page that records failed requests and error responses besides page errors. */
async function watchedPage(errors) {
  const page = await newPage(browser, errors);
  page.on('requestfailed', (r) => errors.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()}: ${r.url()}`); });
  // Requests the page does not make itself (the favicon) show only as console errors.
  page.on('console', (m) => { if (/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`); });
  return page;
}

for (const sub of ['', 'eval/']) {
  test(`the page works under ${PREFIX}${sub}: RAG demo, task mode, retrieval, viewer`, async () => {
    const errors = [];
    const page = await watchedPage(errors);
    await page.goto(`${site.url}/${sub}?lang=en&demo_latency=0`);
    assert.equal(new URL(page.url()).pathname, `${PREFIX}${sub}`);
    await page.waitForSelector('[data-testid=dataset-summary]');
    const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));
    for (const p of loaded.filter((l) => /\.(js|wasm|css)$/.test(l))) {
      assert.ok(p.startsWith(PREFIX) && !p.startsWith(`${PREFIX}eval/`), `${p} is loaded from the site's folder`);
    }

    await page.click('[data-testid=start]');
    await waitStatus(page, 'done');
    assert.equal(await page.locator('[data-testid=case-row]').count(), 10);
    const report = await download(page, 'download-report');

    await page.click('[data-testid=mode-task]');
    await page.waitForSelector('[data-testid=task-yaml]');
    await page.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done');

    await page.click('[data-testid=mode-retrieval]');
    await page.waitForSelector('[data-testid=retrieval-dataset-summary]');
    await page.click('[data-testid=retrieval-start]');
    await waitStatus(page, 'done');
    assert.equal(await page.locator('[data-testid=case-row]').count(), 16);

    await page.click('[data-testid=mode-view]');
    const file = path.join(tmpDir('hosting'), 'report.json');
    fs.writeFileSync(file, report.text);
    await page.setInputFiles('[data-testid=open-report]', file);
    await page.waitForSelector('[data-testid=case-row]');
    assert.equal(await page.locator('[data-testid=case-row]').count(), 10);
    assert.ok(new URL(page.url()).pathname.startsWith(PREFIX), page.url());
    assert.deepEqual(errors, []);
    await page.context().close();
  });
}

test('a folder asked for without its slash is redirected, and the page boots there', async () => {
  for (const [asked, lands] of [['', PREFIX], ['/eval', `${PREFIX}eval/`]]) {
    const errors = [];
    const page = await watchedPage(errors);
    await page.goto(`${site.url}${asked}?lang=en`);
    await page.waitForSelector('[data-testid=dataset-summary]');
    const u = new URL(page.url());
    assert.equal(u.pathname, lands);
    assert.equal(u.searchParams.get('lang'), 'en');
    assert.deepEqual(errors, []);
    await page.context().close();
  }
});

test('each mode is its own bundle: a page loads the URL mode\'s .wasm only, and the tabs add each other mode\'s once, keeping the language', async () => {
  const errors = [];
  const page = await watchedPage(errors);
  const wasms = () => page.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => new URL(e.name).pathname.split('/').pop()).filter((n) => n.endsWith('.wasm')));
  await page.goto(`${site.url}/?lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=dataset-summary]');
  const run = (await wasms()).filter((n) => n.endsWith('_bg.wasm'));
  assert.equal(run.length, 1, `the RAG check loads one bundle: ${run}`);
  assert.match(run[0], /^evalpage-web-[0-9a-f]+_bg\.wasm$/);

  await page.click('[data-testid=mode-view]');
  await page.waitForSelector('[data-testid=open-report]');
  assert.equal(new URL(page.url()).searchParams.get('mode'), 'view');
  const view = (await wasms()).filter((n) => n.endsWith('_bg.wasm') && !run.includes(n));
  assert.equal(view.length, 1, `the viewer adds one .wasm: ${view}`);
  assert.match(view[0], /^evalpage-view-[0-9a-f]+_bg\.wasm$/);
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  assert.equal(await page.getAttribute('[data-testid=mode-view]', 'aria-selected'), 'true');

  await page.click('[data-testid=mode-task]');
  await page.waitForSelector('[data-testid=task-yaml]');
  const u = new URL(page.url());
  assert.equal(u.searchParams.get('mode'), 'task');
  assert.equal(u.searchParams.get('lang'), 'en');
  const task = (await wasms()).filter((n) => n.endsWith('_bg.wasm') && !run.includes(n) && !view.includes(n));
  assert.equal(task.length, 1, `the task mode adds one .wasm: ${task}`);
  assert.match(task[0], /^evalpage-task-[0-9a-f]+_bg\.wasm$/);
  await page.click('[data-testid=mode-rag]');
  await page.waitForSelector('[data-testid=dataset-summary]');
  await page.click('[data-testid=mode-view]');
  await page.waitForSelector('[data-testid=open-report]');
  const bundles = (await wasms()).filter((n) => n.endsWith('_bg.wasm'));
  assert.equal(bundles.length, 3, `a mode opened again loads no bundle again: ${bundles}`);
  assert.deepEqual(errors, []);
  await page.context().close();
});
