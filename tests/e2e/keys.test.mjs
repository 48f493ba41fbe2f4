// End-to-end: an API key belongs to the origin it was entered for. Every path by
// which a key could leave the page is tried in Chromium against two
// `evalpage mock-server`s on loopback (A: the user's endpoint, B: "another" one):
// a crafted link with autorun (localStorage and sessionStorage), a link to the
// same origin, presets, the resume banner after a reload, the task mode's
// registry keys, plain http to a remote host, and Forget keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startMock, startSite, launch, newPage, waitStatus, useEndpoint, DEMO_DATASET,
} from './helpers.mjs';

const KEY = 'sk-e2e-ORIGIN-BOUND-5521';
let site; let browser; let A; let B;

before(async () => {
  site = await startSite();
  browser = await launch();
  A = await startMock(['--latency-ms', '300']);
  B = await startMock();
});
after(async () => { await browser?.close(); A?.stop(); B?.stop(); site?.stop(); });

const originOf = (u) => new URL(u).origin;

/** Records every POST to a chat endpoint: [origin, Authorization header]. */
function watchPosts(page) {
  const seen = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/chat/completions')) {
      seen.push([originOf(r.url()), r.headers().authorization]);
    }
  });
  return seen;
}

/** Opens the page, points it at `endpoint` and types the key (remembered or not). */
async function enterKey(page, endpoint, remember) {
  await page.goto(`${site.url}/?lang=en`);
  await useEndpoint(page, endpoint);
  await page.fill('[data-testid=api-key]', KEY);
  if (remember) await page.check('[data-testid=remember-key]');
  await page.waitForFunction((o) => document.querySelector('[data-testid=saved-key-origins]')?.textContent.includes(o),
    originOf(endpoint));
}

const crafted = (endpoint) => `${site.url}/?lang=en&provider=openai&endpoint=${encodeURIComponent(endpoint)}`
  + '&model=evalpage-demo&autorun=1&demo_latency=0';

test('a crafted link with another endpoint and autorun: a remembered key is not sent there', async () => {
  const context = await browser.newContext();
  const setup = await context.newPage();
  await enterKey(setup, A.url, true);
  assert.ok((await setup.evaluate(() => JSON.stringify(localStorage))).includes(KEY), 'remembered in localStorage');
  await setup.close();

  const page = await context.newPage();
  const posts = watchPosts(page);
  await page.goto(crafted(B.url));
  await waitStatus(page, 'done');
  assert.equal(await page.inputValue('[data-testid=api-key]'), '', 'B has no key of its own: empty field');
  assert.equal(await page.textContent('[data-testid=target-origin]'), originOf(B.url));
  assert.equal(posts.length, 10);
  assert.ok(posts.every(([o, auth]) => o === originOf(B.url) && auth === undefined), JSON.stringify(posts));
  assert.equal(await page.locator('[data-testid=key-prompt]').count(), 0);
  await context.close();
});

test('the same in the same tab with a key kept in sessionStorage', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await enterKey(page, A.url, false);
  assert.ok((await page.evaluate(() => JSON.stringify(sessionStorage))).includes(KEY));
  assert.ok(!(await page.evaluate(() => JSON.stringify(localStorage))).includes(KEY));
  const posts = watchPosts(page);
  await page.goto(crafted(B.url));
  await waitStatus(page, 'done');
  assert.equal(await page.inputValue('[data-testid=api-key]'), '');
  assert.equal(posts.length, 10);
  assert.ok(posts.every(([o, auth]) => o === originOf(B.url) && auth === undefined), JSON.stringify(posts));
  // The key is still A's: back on A it is in the field again.
  await useEndpoint(page, A.url);
  assert.equal(await page.inputValue('[data-testid=api-key]'), KEY);
  await context.close();
});

test('a link to the key\'s own origin waits for a click that names the origin, then runs with the key', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await enterKey(page, A.url, true);
  const posts = watchPosts(page);
  await page.goto(crafted(A.url));
  await page.waitForSelector('[data-testid=key-prompt]');
  assert.equal(await page.textContent('[data-testid=key-prompt-origin]'), originOf(A.url));
  assert.equal(await page.inputValue('[data-testid=api-key]'), KEY, 'its own origin: the key is filled in');
  await page.waitForTimeout(800);
  assert.equal(posts.length, 0, 'nothing is sent before the click');
  assert.equal(await page.textContent('[data-testid=run-status]'), 'idle');
  await page.click('[data-testid=confirm-key]');
  await waitStatus(page, 'done');
  assert.equal(posts.length, 10);
  assert.ok(posts.every(([o, auth]) => o === originOf(A.url) && auth === `Bearer ${KEY}`));
  await context.close();
});

test('presets start with an empty key field; the key comes back only on its own origin', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await enterKey(page, A.url, false);
  const presets = { Ollama: 'http://127.0.0.1:11434/v1', vLLM: 'http://127.0.0.1:8000/v1',
    OpenAI: 'https://api.openai.com/v1', 'llama.cpp': 'http://127.0.0.1:8081/v1' };
  for (const [preset, url] of Object.entries(presets)) {
    await page.click(`.presets button:text-is("${preset}")`);
    await page.waitForFunction((u) => document.querySelector('[data-testid=endpoint-url]').value === u, url);
    assert.equal(await page.inputValue('[data-testid=api-key]'), '', `${preset}: no key`);
    assert.equal(await page.textContent('[data-testid=target-origin]'), originOf(url), preset);
  }
  await useEndpoint(page, `${A.url}/`);
  assert.equal(await page.inputValue('[data-testid=api-key]'), KEY, 'A again: its key is back');
  await context.close();
});

test('the resume banner after a reload names its origin; the stored run keeps its endpoint and only its key', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await enterKey(page, A.url, false);
  await page.goto(`${site.url}/?lang=en&concurrency=2`);
  await page.setInputFiles('[data-testid=dataset-file]', DEMO_DATASET);
  await page.click('[data-testid=start]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=progress]').textContent.split('/')[0]) >= 2);
  // Reload into a link that names another endpoint: the offered run still goes to A.
  const posts = watchPosts(page);
  await page.goto(`${site.url}/?lang=en&concurrency=2&provider=openai&endpoint=${encodeURIComponent(B.url)}`);
  await page.waitForSelector('[data-testid=resume-offer]');
  assert.match(await page.textContent('[data-testid=resume-offer]'), new RegExp(`Requests go to ${originOf(A.url)}`));
  assert.equal(await page.inputValue('[data-testid=api-key]'), '', 'B has no key');
  await page.click('[data-testid=resume-run]');
  await waitStatus(page, 'done');
  assert.ok(posts.length > 0);
  assert.ok(posts.every(([o, auth]) => o === originOf(A.url) && auth === `Bearer ${KEY}`), JSON.stringify(posts));
  await context.close();
});

test('task mode: a registry key lives in memory and is never reused for another base URL', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-yaml]');
  await page.click('[data-testid=task-models-panel] summary');
  const registry = (url) => JSON.stringify({ models: [{ name: 'local', base_url: url, model: 'evalpage-demo', api_key_env: 'LOCAL_KEY' }] });
  await page.fill('[data-testid=registry]', registry(A.url));
  await page.waitForSelector('[data-testid=model-key-local]');
  await page.fill('[data-testid=model-key-local]', KEY);
  // The same name now points at B: its key field is empty and B gets no key.
  await page.fill('[data-testid=registry]', registry(B.url));
  await page.waitForFunction(() => document.querySelector('[data-testid=model-key-local]')?.value === '');
  await page.check('[data-testid=model-toggle-local]');
  await page.uncheck('[data-testid=model-toggle-mock-a]');
  await page.uncheck('[data-testid=model-toggle-mock-b]');
  const posts = watchPosts(page);
  await page.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.ok(posts.length > 0);
  assert.ok(posts.every(([o, auth]) => o === originOf(B.url) && auth === undefined), JSON.stringify(posts));
  for (const store of ['localStorage', 'sessionStorage']) {
    assert.ok(!(await page.evaluate((s) => JSON.stringify(window[s]), store)).includes(KEY), store);
  }
  await page.context().close();
});

test('plain http to a remote host: a warning beside Start and a prompt before anything is sent', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const remote = 'http://evalpage-remote.invalid:8000/v1';
  const posts = watchPosts(page);
  await enterKey(page, remote, false);
  await page.waitForSelector('[data-testid=plain-http-warning]');
  assert.equal(await page.textContent('[data-testid=target-origin]'), originOf(remote));
  await page.click('[data-testid=start]');
  await page.waitForSelector('[data-testid=key-prompt]');
  assert.match(await page.textContent('[data-testid=key-prompt]'), /plain http:\/\//);
  assert.equal(await page.textContent('[data-testid=key-prompt-origin]'), originOf(remote));
  await page.waitForTimeout(300);
  assert.equal(posts.length, 0, 'nothing sent before the confirmation');
  await page.click('[data-testid=dismiss-key]');
  assert.equal(await page.locator('[data-testid=key-prompt]').count(), 0);
  // Loopback over http needs no such warning.
  await useEndpoint(page, A.url);
  assert.equal(await page.locator('[data-testid=plain-http-warning]').count(), 0);
  await context.close();
});

test('Forget keys lists the origins with a key and removes every saved key', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await enterKey(page, A.url, true);
  await useEndpoint(page, B.url);
  await page.fill('[data-testid=api-key]', `${KEY}-B`);
  const listed = await page.locator('[data-testid=saved-key-origins] li').allTextContents();
  assert.equal(listed.length, 2, listed.join(' | '));
  assert.ok(listed.some((l) => l.startsWith(originOf(A.url)) && l.includes('this browser')));
  assert.ok(listed.some((l) => l.startsWith(originOf(B.url)) && l.includes('this tab')));
  await page.click('[data-testid=forget-keys]');
  await page.waitForSelector('[data-testid=no-saved-keys]');
  assert.equal(await page.inputValue('[data-testid=api-key]'), '');
  for (const store of ['localStorage', 'sessionStorage']) {
    assert.ok(!(await page.evaluate((s) => JSON.stringify(window[s]), store)).includes(KEY), store);
  }
  await page.reload();
  await useEndpoint(page, A.url);
  assert.equal(await page.inputValue('[data-testid=api-key]'), '', 'nothing comes back after a reload');
  await context.close();
});
