// End-to-end: *Copy share link* (RAG check and task mode) on a site served
// under a sub-path. The link carries the dataset URL, the task (inline when
// small), endpoint, model and settings, never the key typed; opening it
// restores the same evaluation, ready to run and not running. A local file is
// said to be unshareable; a hostile inlined task is only a task to check.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startSite, startMock, launch, newPage, waitStatus, useEndpoint, DATA } from './helpers.mjs';

const KEY = 'sk-share-Zq9xW7-never-in-a-link';
let site; let browser; let mock;

before(async () => {
  site = await startSite('/team/evals/');
  mock = await startMock();
  browser = await launch();
});
after(async () => { await browser?.close(); mock?.stop(); site?.stop(); });

/** Clicks the share button and returns the link shown in the read-only field. */
async function shareLink(page) {
  await page.click('[data-testid=share-button]');
  await page.waitForSelector('[data-testid=share-link]');
  assert.ok(await page.$eval('[data-testid=share-link]', (e) => e.readOnly));
  return page.inputValue('[data-testid=share-link]');
}

/** Fails when the link holds the key, or any part of it as a parameter. */
function assertNoKey(link) {
  assert.ok(!link.includes(KEY) && !decodeURIComponent(link).includes(KEY), link);
  for (const [k, v] of new URL(link).searchParams) {
    assert.ok(!/key|secret|token$/i.test(k), `parameter ${k}`);
    assert.ok(!v.includes('Zq9xW7') && !v.includes('sk-share'), `${k}=${v}`);
  }
}

test('RAG: the link carries dataset URL, endpoint, model and settings, never the key; it opens ready to run', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(`${site.url}/?lang=en&dataset=demo/demo_dataset.jsonl&concurrency=3&temperature=0.5&max_tokens=77&match=strict&timeout=30&attempts=2`);
  await page.waitForFunction(() => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes('10'));
  await useEndpoint(page, mock.url);
  await page.fill('[data-testid=api-key]', KEY);
  await page.waitForFunction(() => document.querySelector('[data-testid=share-notes]')?.textContent.includes('no key'));

  const link = await shareLink(page);
  assertNoKey(link);
  const u = new URL(link);
  assert.equal(u.pathname, '/team/evals/');
  const q = Object.fromEntries(u.searchParams);
  assert.equal(q.dataset, 'demo/demo_dataset.jsonl');
  assert.equal(q.provider, 'openai');
  assert.equal(q.endpoint, mock.url);
  assert.equal(q.model, 'evalpage-demo');
  assert.deepEqual([q.concurrency, q.temperature, q.max_tokens, q.match, q.timeout, q.attempts],
    ['3', '0.5', '77', 'strict', '30', '2']);
  assert.equal(q.autorun, undefined, 'a link never starts a run by itself');
  await page.waitForSelector('[data-testid=share-copied]');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);

  // Opened in another browser (a fresh context: no saved settings, no key).
  const other = await newPage(browser, errors);
  await other.goto(link);
  await other.waitForFunction(() => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes('10'));
  assert.equal(await other.inputValue('[data-testid=provider]'), 'openai');
  assert.equal(await other.inputValue('[data-testid=endpoint-url]'), mock.url);
  assert.equal(await other.inputValue('[data-testid=model-name]'), 'evalpage-demo');
  assert.equal(await other.inputValue('[data-testid=concurrency]'), '3');
  assert.equal(await other.inputValue('[data-testid=match-mode]'), 'strict');
  assert.equal(await other.inputValue('[data-testid=api-key]'), '');
  assert.equal(await other.textContent('[data-testid=run-status]'), 'idle');
  assert.equal(await shareLink(other), link, 'the same evaluation gives the same link');
  await other.click('[data-testid=start]');
  await waitStatus(other, 'done');
  assert.equal(await other.textContent('[data-testid=progress]'), '10/10');

  // A local file cannot be shared: said beside the button, left out of the link.
  await page.setInputFiles('[data-testid=dataset-file]', path.join(DATA, 'spec_three_cases.jsonl'));
  await page.waitForFunction(() => document.querySelector('[data-testid=share-notes]')?.textContent.includes('spec_three_cases.jsonl is a local file'));
  const local = await shareLink(page);
  assert.equal(new URL(local).searchParams.get('dataset'), null);
  assertNoKey(local);
  assert.deepEqual(errors, []);
  await page.context().close();
  await other.context().close();
});

test('task mode: an edited task is inlined, the models and settings come back, ready to run', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-yaml]');
  const edited = `${await page.inputValue('[data-testid=task-yaml]')}# shared with the team\n`;
  await page.fill('[data-testid=task-yaml]', edited);
  await page.uncheck('[data-testid=model-toggle-mock-b]');
  await page.fill('[data-testid=endpoint-url]', mock.url);
  await page.fill('[data-testid=api-key]', KEY);
  await page.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);

  const link = await shareLink(page);
  assertNoKey(link);
  const q = new URL(link).searchParams;
  assert.equal(q.get('mode'), 'task');
  assert.equal(q.get('task'), 'event_eval');
  assert.equal(Buffer.from(q.get('task_yaml'), 'base64url').toString('utf8'), edited);
  assert.equal(q.get('models'), 'mock-a');
  assert.equal(q.get('endpoint'), mock.url);

  const other = await newPage(browser, errors);
  await other.goto(link);
  await other.waitForSelector('[data-testid=task-yaml]');
  assert.equal(await other.inputValue('[data-testid=task-yaml]'), edited);
  assert.equal(await other.isChecked('[data-testid=model-toggle-mock-a]'), true);
  assert.equal(await other.isChecked('[data-testid=model-toggle-mock-b]'), false);
  assert.equal(await other.inputValue('[data-testid=endpoint-url]'), mock.url);
  assert.equal(await other.inputValue('[data-testid=api-key]'), '');
  await other.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);
  assert.equal(await other.textContent('[data-testid=run-status]'), 'idle');
  await other.click('[data-testid=start]');
  await waitStatus(other, 'done');
  assert.deepEqual(errors, []);
  await page.context().close();
  await other.context().close();
});

test('task mode: a dataset opened with ?dataset= is in the link, a local one is said not to be', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0&task=support_qa&dataset=demo/tasks/support_qa.jsonl`);
  await page.waitForFunction(() => document.querySelector('[data-testid=task-dataset-summary]')?.textContent.includes('support_qa.jsonl'));
  const link = await shareLink(page);
  const q = new URL(link).searchParams;
  assert.equal(q.get('dataset'), 'demo/tasks/support_qa.jsonl');
  assert.equal(q.get('task'), 'support_qa');
  assert.equal(q.get('task_yaml'), null, 'the preset as it ships is named, not inlined');
  assert.equal(await page.locator('[data-testid=share-notes]').count(), 0);

  const other = await newPage(browser, errors);
  await other.goto(link);
  await other.waitForFunction(() => document.querySelector('[data-testid=task-dataset-summary]')?.textContent.includes('support_qa.jsonl'));
  await other.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);
  await other.click('[data-testid=start]');
  await waitStatus(other, 'done');
  // The RAG tab of a task link keeps its own (demo) dataset.
  await other.click('[data-testid=mode-rag]');
  await other.waitForFunction(() => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes('demo_dataset.jsonl'));
  assert.equal(await other.inputValue('[data-testid=provider]'), 'demo', "the task's endpoint stays the task's");

  await page.setInputFiles('[data-testid=task-dataset-file]', path.join(DATA, 'task_one_bad_line.jsonl'));
  await page.waitForFunction(() => document.querySelector('[data-testid=share-notes]')?.textContent.includes('task_one_bad_line.jsonl is a local file'));
  assert.equal(new URL(await shareLink(page)).searchParams.get('dataset'), null);
  assert.deepEqual(errors, []);
  await page.context().close();
  await other.context().close();
});

test('a hostile inlined task is only checked: its errors show and nothing runs', async () => {
  const hostile = [
    'name: "<img src=x onerror=alert(1)>"',
    'dataset: {format: samples}',
    'prompt: !!js/function "function(){ fetch(\'http://evil.example/\') }"',
    `padding: "${'A'.repeat(2000)}"`,
    '',
  ].join('\n');
  for (const value of [Buffer.from(hostile).toString('base64url'), '%%%not-base64%%%']) {
    const errors = [];
    const page = await newPage(browser, errors);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    let dialogs = 0;
    page.on('dialog', (d) => { dialogs += 1; d.dismiss(); });
    await page.goto(`${site.url}/?mode=task&lang=en&autorun=1&task_yaml=${encodeURIComponent(value)}`);
    await page.waitForSelector('[data-testid=task-yaml-errors] li');
    assert.ok(await page.isDisabled('[data-testid=start]'));
    await page.waitForTimeout(300);
    assert.equal(await page.textContent('[data-testid=run-status]'), 'idle');
    assert.equal(dialogs, 0);
    assert.ok(requests.every((r) => r.startsWith(site.url.replace(/\/team\/evals$/, ''))), requests.join('\n'));
    assert.deepEqual(errors, []);
    await page.context().close();
  }
});
