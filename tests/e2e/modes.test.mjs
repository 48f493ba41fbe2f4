// End-to-end: each mode is its own bundle, loaded when the mode is first opened
// (www/init.js). A first visit straight into each mode loads that mode's .wasm
// only and can start; a mode not yet loaded shows that it loads, and the mode
// left keeps its state and its run; a mode whose code cannot be fetched says so
// with a Retry (and a way back), and Retry loads it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, launch, newPage, waitStatus } from './helpers.mjs';

let site; let browser;
before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

const wasms = (page) => page.evaluate(() => performance.getEntriesByType('resource')
  .map((e) => new URL(e.name).pathname.split('/').pop()).filter((n) => n.endsWith('.wasm')));

// What each mode shows once it can be used, and its bundle's name.
const MODES = [
  ['rag', 'evalpage-web', '[data-testid=start]:not([disabled])'],
  ['task', 'evalpage-task', '[data-testid=start]:not([disabled])'],
  ['retrieval', 'evalpage-retrieval', '[data-testid=retrieval-start]:not([disabled])'],
  ['dialog', 'evalpage-dialog', '[data-testid=dialog-start]:not([disabled])'],
  ['view', 'evalpage-view', '[data-testid=open-report]'],
];

for (const [mode, bundle, ready] of MODES) {
  test(`a first visit straight into ${mode} loads its own bundle only and is ready`, async () => {
    const errors = [];
    const page = await newPage(browser, errors);
    await page.goto(`${site.url}/?mode=${mode}&lang=en`);
    await page.waitForSelector(ready);
    assert.equal(await page.getAttribute(`[data-testid=mode-${mode}]`, 'aria-selected'), 'true');
    const all = await wasms(page);
    const loaded = all.filter((n) => n.endsWith('_bg.wasm'));
    assert.equal(loaded.length, 1, `one bundle: ${all}`);
    assert.ok(loaded[0].startsWith(`${bundle}-`), loaded[0]);
    assert.ok(all.every((n) => n.startsWith(`${bundle}-`)), `the rest are its own split modules (its run code): ${all}`);
    assert.equal(await page.locator('[data-testid=mode-loading]').count(), 0);
    assert.equal(await page.locator('.page header').count(), 1, 'one header');
    assert.deepEqual(errors, []);
    await page.context().close();
  });
}

test('a mode not yet loaded shows that it loads; the mode left keeps its run going and its results', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  let release;
  const gate = new Promise((r) => { release = r; });
  await page.route('**/evalpage-dialog-*_bg.wasm', async (route) => { await gate; await route.continue(); });
  await page.goto(`${site.url}/?lang=en&demo_latency=1`);
  await page.waitForSelector('[data-testid=start]:not([disabled])');
  await page.click('[data-testid=start]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=progress]')?.textContent.split('/')[0]) >= 1);

  await page.click('[data-testid=mode-dialog]');
  await page.waitForSelector('[data-testid=mode-loading]');
  assert.equal(await page.textContent('[data-testid=mode-loading]'), 'Loading the dialog mode…');
  assert.equal(await page.locator('[data-testid=start]').count(), 0, 'the RAG check is hidden meanwhile');
  release();
  await page.waitForSelector('[data-testid=dialog-start]:not([disabled])');
  assert.ok(await page.locator('[data-testid=mode-loading]').isHidden());
  assert.match(page.url(), /mode=dialog/);

  await page.click('[data-testid=mode-rag]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '10/10', 'the run went on while hidden');
  assert.equal(await page.locator('[data-testid=case-row]').count(), 10);
  await page.click('[data-testid=mode-dialog]');
  await page.waitForSelector('[data-testid=dialog-start]');
  await page.click('[data-testid=mode-rag]');
  assert.equal(await page.textContent('[data-testid=run-status]'), 'done', 'shown again as it was');
  const fetched = await wasms(page);
  assert.equal(fetched.filter((n) => n.endsWith('_bg.wasm')).length, 2, `each bundle was fetched once: ${fetched}`);
  assert.equal(new Set(fetched).size, fetched.length, `each split module (the RAG check's run code) once: ${fetched}`);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a mode whose code fails to load says so with Retry and a way back; Retry loads it', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  let fail = true;
  await page.route('**/evalpage-retrieval-*_bg.wasm', (route) => (fail ? route.abort() : route.continue()));
  await page.goto(`${site.url}/?lang=en`);
  await page.waitForSelector('[data-testid=dataset-summary]');

  await page.click('[data-testid=mode-retrieval]');
  await page.waitForSelector('[data-testid=mode-load-failed]');
  assert.match(await page.textContent('[data-testid=mode-load-failed]'), /The retrieval mode's code could not be loaded/);
  assert.equal(await page.getAttribute('[data-testid=mode-load-failed]', 'role'), 'alert');
  await page.click('[data-testid=mode-load-back]');
  await page.waitForSelector('[data-testid=dataset-summary]');
  assert.ok(!/mode=retrieval/.test(page.url()));

  await page.click('[data-testid=mode-retrieval]');
  await page.waitForSelector('[data-testid=mode-load-retry]');
  fail = false;
  await page.click('[data-testid=mode-load-retry]');
  await page.waitForSelector('[data-testid=retrieval-start]:not([disabled])');
  assert.ok(await page.locator('[data-testid=mode-load-failed]').isHidden());
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a first load that fails is a message with Retry, not a blank page', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  let fail = true;
  await page.route('**/evalpage-web-*_bg.wasm', (route) => (fail ? route.abort() : route.continue()));
  await page.goto(`${site.url}/?lang=zh`);
  await page.waitForSelector('[data-testid=mode-load-failed]');
  assert.match(await page.textContent('[data-testid=mode-load-failed]'), /RAG 评测的代码未能加载/);
  assert.equal(await page.locator('[data-testid=mode-load-back]').count(), 0, 'nowhere to go back to');
  fail = false;
  await page.click('[data-testid=mode-load-retry]');
  await page.waitForSelector('[data-testid=start]:not([disabled])');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a key typed in one mode is there in a mode loaded before it was typed', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=retrieval&lang=en`);
  await page.waitForSelector('[data-testid=retrieval-start]');
  await page.click('[data-testid=mode-dialog]');
  await page.waitForSelector('[data-testid=dialog-url]');
  await page.fill('[data-testid=dialog-url]', 'http://127.0.0.1:9/v1');
  await page.fill('[data-testid=dialog-key]', 'sk-typed-in-dialogs');
  await page.click('[data-testid=mode-retrieval]');
  await page.fill('[data-testid=retrieval-url]', 'http://127.0.0.1:9/search');
  assert.equal(await page.inputValue('[data-testid=retrieval-key]'), 'sk-typed-in-dialogs');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a link naming resume= does not resume a run by itself; the offer waits for a click', async () => {
  const errors = [];
  const context = await browser.newContext();
  const first = await context.newPage();
  first.on('pageerror', (e) => errors.push(e.message));
  await first.goto(`${site.url}/?mode=task&lang=en&concurrency=1&demo_latency=4`);
  await first.waitForSelector('[data-testid=start]:not([disabled])');
  await first.click('[data-testid=start]');
  await first.waitForFunction(() => Number(document.querySelector('[data-testid=progress]')?.textContent.split('/')[0]) >= 1);
  await first.close();

  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${site.url}/?mode=task&lang=en`);
  const runId = await (await page.waitForSelector('[data-testid=resume-offer]')).getAttribute('data-run-id');
  await page.goto(`${site.url}/?mode=task&lang=en&resume=${runId}`);
  await page.waitForSelector(`[data-testid=resume-offer][data-run-id="${runId}"]`);
  await page.waitForTimeout(500);
  assert.equal(await page.textContent('[data-testid=run-status]'), 'idle', 'nothing runs without a click');
  assert.equal(new URL(page.url()).searchParams.get('resume'), null, 'the parameter is dropped');
  await page.click('[data-testid=resume-run]');
  await waitStatus(page, 'done');
  assert.deepEqual(errors, []);
  await context.close();
});
