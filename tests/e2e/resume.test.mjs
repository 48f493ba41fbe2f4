// End-to-end: runs survive reloads (IndexedDB), resume from a downloaded event
// log, pause, and the reconcile view — in Chromium against `evalpage mock-server`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startMock, startSite, launch, newPage, waitStatus, download, cli, tmpDir, comparable, useEndpoint,
  DEMO_DATASET,
} from './helpers.mjs';

let site; let mock; let browser;
before(async () => {
  site = await startSite();
  mock = await startMock(['--latency-ms', '400']);
  browser = await launch();
});
after(async () => { await browser?.close(); mock?.stop(); site?.stop(); });

const progress = async (page) => Number((await page.textContent('[data-testid=progress]')).split('/')[0]);
const countPosts = (page) => {
  const seen = { n: 0 };
  page.on('request', (r) => { if (r.method() === 'POST' && r.url().includes('/chat/completions')) seen.n += 1; });
  return seen;
};
/** The CLI's report of the same run, in the page's language (the report records it). */
function cliReport() {
  const out = tmpDir('resume-cli');
  const run = cli(['run', '--dataset', DEMO_DATASET, '--endpoint', mock.url, '--model', 'evalpage-demo',
    '--temperature', '0', '--concurrency', '2', '--lang', 'en', '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  return comparable(fs.readFileSync(path.join(out, 'eval_rag_report.json'), 'utf8'));
}

test('a reload mid-run offers the run back; resuming sends only unfinished cases; same report', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en&concurrency=2`);
  await useEndpoint(page, mock.url);
  await page.click('[data-testid=start]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=progress]').textContent.split('/')[0]) >= 3);
  await page.reload();
  await page.waitForSelector('[data-testid=resume-offer]');
  const offer = await page.textContent('[data-testid=resume-offer]');
  const settled = Number(offer.match(/(\d+)\/10/)[1]);
  assert.ok(settled >= 3 && settled < 10, offer);
  const posts = countPosts(page);
  await page.click('[data-testid=resume-run]');
  await waitStatus(page, 'done');
  assert.equal(posts.n, 10 - settled, 'only the unsettled cases are sent');
  assert.equal(await page.textContent('[data-testid=progress]'), '10/10');
  const report = await download(page, 'download-report');
  assert.deepEqual(comparable(report.text), cliReport());
  await page.reload();
  await page.waitForSelector('[data-testid=dataset-summary]');
  assert.equal(await page.locator('[data-testid=resume-offer]').count(), 0, 'a finished run is not offered again');
});

test('resume from a downloaded event log after a cancel; reconcile view agrees, then catches a cut log', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en&concurrency=2`);
  await useEndpoint(page, mock.url);
  await page.click('[data-testid=start]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=progress]').textContent.split('/')[0]) >= 2);
  await page.click('[data-testid=cancel]');
  await waitStatus(page, 'cancelled');
  const log = await download(page, 'download-events');
  const cancelled = log.text.split('\x1e').filter((r) => r.includes('"kind":"cancelled"')).length;
  assert.ok(cancelled > 0 && cancelled < 10);
  const dir = tmpDir('resume-log');
  const logPath = path.join(dir, 'eval_rag_report.events.json-seq');
  fs.writeFileSync(logPath, log.text);

  const fresh = await newPage(browser, []);
  await fresh.goto(`${site.url}/?lang=en&concurrency=2`);
  await useEndpoint(fresh, mock.url);
  await fresh.waitForSelector('[data-testid=dataset-summary]');
  const posts = countPosts(fresh);
  await fresh.setInputFiles('[data-testid=resume-log-file]', logPath);
  await waitStatus(fresh, 'done');
  assert.equal(posts.n, cancelled, 'only the cancelled cases are sent again');
  const report = await download(fresh, 'download-report');
  assert.deepEqual(comparable(report.text), cliReport());
  const events = await download(fresh, 'download-events');
  const reportPath = path.join(dir, 'eval_rag_report.json');
  const eventsPath = path.join(dir, 'resumed.events.json-seq');
  fs.writeFileSync(reportPath, report.text);
  fs.writeFileSync(eventsPath, events.text);
  await fresh.setInputFiles('[data-testid=reconcile-report]', reportPath);
  await fresh.setInputFiles('[data-testid=reconcile-events]', eventsPath);
  await fresh.waitForSelector('[data-testid=reconcile-result]');
  assert.equal(await fresh.textContent('[data-testid=reconcile-result]'), 'agree');
  const cutPath = path.join(dir, 'cut.events.json-seq');
  fs.writeFileSync(cutPath, events.text.slice(0, -40));
  await fresh.setInputFiles('[data-testid=reconcile-events]', cutPath);
  await fresh.waitForFunction(() => document.querySelector('[data-testid=reconcile-result]')?.textContent === 'disagree');
  assert.match(await fresh.textContent('section:has([data-testid=reconcile-result])'), /cut off/);
});

test('pause lets calls in flight finish and sends nothing new until resumed', async () => {
  const page = await newPage(browser, []);
  await page.goto(`${site.url}/?lang=en&concurrency=1`);
  await useEndpoint(page, mock.url);
  await page.click('[data-testid=start]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=progress]').textContent.split('/')[0]) >= 1);
  await page.click('[data-testid=pause]');
  await page.waitForSelector('[data-testid=paused]');
  await page.waitForTimeout(700);
  const held = await progress(page);
  await page.waitForTimeout(1200);
  assert.equal(await progress(page), held, 'nothing settles while paused');
  assert.ok(held < 10);
  assert.equal(await page.textContent('[data-testid=run-status]'), 'running');
  await page.click('[data-testid=pause]');
  await waitStatus(page, 'done');
});
