// End-to-end: one click on Start starts the run, whatever was typed last. A
// field that commits on blur re-rendered the page on the mousedown of that
// click (the key's origin listed, a warning shown), the Start button moved
// and the click was lost: status `idle`, `0/0`, nothing sent. These tests act
// as a person does: they type into the field, then click Start once — no Tab,
// no wait in between.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startMock, startSite, launch, newPage, waitStatus,
} from './helpers.mjs';

const KEY = 'sk-e2e-FIRST-CLICK-qWzT';
let site; let browser; let mock;

before(async () => {
  site = await startSite();
  browser = await launch();
  mock = await startMock();
});
after(async () => { await browser?.close(); mock?.stop(); site?.stop(); });

/** Every POST to the mock's chat endpoint: its Authorization header. */
function watchPosts(page) {
  const seen = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().startsWith(mock.url)) seen.push(r.headers().authorization);
  });
  return seen;
}

/** The RAG check pointed at the mock, as a person fills the model panel. */
async function ragWithEndpoint(errors) {
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?lang=en`);
  await page.selectOption('[data-testid=provider]', 'openai');
  await page.fill('[data-testid=endpoint-url]', mock.url);
  await page.fill('[data-testid=model-name]', 'evalpage-demo');
  return page;
}

test('RAG check: type the API key, click Start once: the run starts and the key goes with it', async () => {
  const errors = [];
  const page = await ragWithEndpoint(errors);
  const seen = watchPosts(page);
  await page.fill('[data-testid=api-key]', KEY);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '10/10');
  assert.equal(seen.length, 10, 'one request per case');
  assert.ok(seen.every((auth) => auth === `Bearer ${KEY}`), 'the typed key went with every request');
  assert.deepEqual(errors, []);
});

test('RAG check: a field that shows a warning (concurrency 8) typed last, then one click on Start', async () => {
  const page = await ragWithEndpoint([]);
  await page.fill('[data-testid=api-key]', KEY);
  await page.fill('[data-testid=concurrency]', '8');
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '10/10');
  assert.ok(await page.isVisible('[data-testid=concurrency-warning]'));
});

test('task mode: type a registry model\'s key, click Start once', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-yaml]');
  await page.click('[data-testid=task-models-panel] summary');
  const registry = { models: [{ name: 'local', base_url: mock.url, model: 'evalpage-demo', api_key_env: 'LOCAL_KEY' }] };
  await page.fill('[data-testid=registry]', JSON.stringify(registry));
  await page.waitForSelector('[data-testid=model-key-local]');
  await page.check('[data-testid=model-toggle-local]');
  await page.uncheck('[data-testid=model-toggle-mock-a]');
  await page.uncheck('[data-testid=model-toggle-mock-b]');
  const seen = watchPosts(page);
  await page.fill('[data-testid=model-key-local]', KEY);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.ok(seen.length > 0, 'requests were sent');
  assert.ok(seen.every((auth) => auth === `Bearer ${KEY}`));
});

test('a number typed mid-edit (0.) is not reset under the cursor', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en`);
  const price = page.locator('[data-testid=price-in]');
  await price.click();
  await page.keyboard.type('0.75');
  assert.equal(await price.inputValue(), '0.75');
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
});
