// End-to-end: several tabs of one browser (pages of one context, so one
// IndexedDB and one Web Locks manager). A run live in another tab is never
// offered; a reloaded tab is offered its own unfinished run; several
// unfinished runs, of both modes, are listed to choose from.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startMock, startSite, launch, waitStatus, download, useEndpoint, DATA } from './helpers.mjs';

const RAG_B = path.join(DATA, 'rag_b.jsonl');
let site; let mock; let browser;

before(async () => {
  site = await startSite();
  mock = await startMock(['--latency-ms', '500']);
  browser = await launch();
});
after(async () => { await browser?.close(); mock?.stop(); site?.stop(); });

const settled = (page, n) => page.waitForFunction(
  (k) => Number(document.querySelector('[data-testid=progress]')?.textContent.split('/')[0]) >= k, n);

/** Opens a RAG tab on the mock endpoint, with dataset B when asked, and starts it. */
async function startRag(context, errors, datasetB) {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${site.url}/?lang=en&concurrency=1`);
  await useEndpoint(page, mock.url);
  if (datasetB) {
    await page.setInputFiles('[data-testid=dataset-file]', RAG_B);
    await page.waitForFunction(() => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes('rag_b.jsonl'));
  } else {
    await page.waitForFunction(() => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes('demo_dataset.jsonl'));
  }
  await page.click('[data-testid=start]');
  return page;
}

const offered = (page) => page.locator('[data-testid=resume-offer]')
  .evaluateAll((els) => els.map((e) => [e.dataset.dataset, e.dataset.mode]));

async function report(page) {
  const r = JSON.parse((await download(page, 'download-report')).text);
  return [r.report.experiment.dataset.dataset_id, r.metrics.cases];
}

test('tab A reloaded while tab B runs: A is offered its own run only, resumes it to its own report; B finishes its own', async () => {
  const errors = [];
  const context = await browser.newContext({ acceptDownloads: true });
  const a = await startRag(context, errors, false);
  const b = await startRag(context, errors, true);
  await settled(a, 2);
  await settled(b, 1);
  await a.reload();
  await a.waitForSelector('[data-testid=resume-offer]');
  await a.waitForTimeout(300);
  assert.equal(await b.textContent('[data-testid=run-status]'), 'running', 'B is still live in its tab');
  assert.deepEqual(await offered(a), [['demo_dataset.jsonl', 'rag']], "A is offered its own run, never B's live one");
  const offer = await a.textContent('[data-testid=resume-offer]');
  const done = Number(offer.match(/(\d+)\/10 cases settled/)[1]);
  assert.ok(done >= 2 && done < 10, offer);
  await a.click('[data-testid=resume-run]');
  await waitStatus(a, 'done');
  await waitStatus(b, 'done');
  assert.equal(await a.textContent('[data-testid=progress]'), '10/10');
  assert.equal(await b.textContent('[data-testid=progress]'), '8/8');
  assert.deepEqual(await report(a), ['demo_dataset', 10], 'tab A reports dataset A');
  assert.deepEqual(await report(b), ['rag_b', 8], 'tab B reports dataset B');
  await a.reload();
  await a.waitForSelector('[data-testid=dataset-summary]');
  await a.waitForTimeout(500);
  assert.equal(await a.locator('[data-testid=resume-offer]').count(), 0, 'both runs finished: nothing is offered');
  assert.deepEqual(errors, []);
  await context.close();
});

test('several unfinished runs of both modes are listed, each resumed or discarded on its own', async () => {
  const errors = [];
  const context = await browser.newContext({ acceptDownloads: true });
  const one = await startRag(context, errors, false);
  const two = await startRag(context, errors, true);
  const three = await context.newPage();
  three.on('pageerror', (e) => errors.push(e.message));
  await three.goto(`${site.url}/?mode=task&lang=en&concurrency=1&demo_latency=4`);
  await three.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);
  await three.click('[data-testid=start]');
  await Promise.all([settled(one, 1), settled(two, 1), settled(three, 1)]);
  for (const p of [one, two, three]) await p.close();

  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${site.url}/?lang=en`);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=resume-offer]').length === 3);
  assert.deepEqual((await offered(page)).sort(),
    [['demo_dataset.jsonl', 'rag'], ['event_eval.jsonl', 'task'], ['rag_b.jsonl', 'rag']]);
  assert.match(await page.textContent('[data-testid=resume-count]'), /3 unfinished runs/);
  for (const text of await page.locator('[data-testid=resume-offer]').allTextContents()) {
    if (text.includes('task run')) assert.match(text, /event_eval · event_eval\.jsonl · mock-a, mock-b\): \d+\/16 calls settled/);
    else assert.match(text, new RegExp(`\\d+/(10|8) cases settled\\. Requests go to ${new URL(mock.url).origin}`));
  }

  await page.click('[data-testid=resume-offer][data-dataset="rag_b.jsonl"] [data-testid=discard-run]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=resume-offer]').length === 2);

  // A task run offered in the RAG tab: resuming it opens the task mode and runs it there.
  await page.click('[data-testid=resume-offer][data-mode=task] [data-testid=resume-run]');
  await page.waitForSelector('[data-testid=task-yaml]');
  assert.match(page.url(), /mode=task/);
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '16/16');
  assert.deepEqual(await offered(page), [['demo_dataset.jsonl', 'rag']]);

  await page.click('[data-testid=mode-rag]');
  await page.waitForSelector('[data-testid=resume-offer][data-dataset="demo_dataset.jsonl"]');
  await page.click('[data-testid=resume-run]');
  await waitStatus(page, 'done');
  assert.equal(await page.textContent('[data-testid=progress]'), '10/10');
  assert.deepEqual(await report(page), ['demo_dataset', 10]);
  await page.reload();
  await page.waitForSelector('[data-testid=dataset-summary]');
  await page.waitForTimeout(500);
  assert.equal(await page.locator('[data-testid=resume-offer]').count(), 0, 'resumed and discarded runs are gone');
  assert.deepEqual(errors, []);
  await context.close();
});
