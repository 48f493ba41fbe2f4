// End-to-end: repeats in the task mode of the release build in Chromium. A
// person types how many times each sample is asked, clicks Start once; every
// answer is a call and a row, the report gives pass@k and pass^k of the
// pass/fail metrics with each sample's values per repeat, and the viewer
// shows pass@k of that report; the Reconcile panel counts each asking as a case.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startSite, launch, newPage, waitStatus, downloadBytes, readStoredZip, tmpDir,
} from './helpers.mjs';

let site; let browser;

before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

test('three asks per sample: 3x the calls, pass@k in the report and in the viewer', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-yaml]');
  await page.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);
  await page.fill('[data-testid=task-repeats]', '3');
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  // event_eval: 8 samples x 2 mock models x 3 asks
  assert.equal(await page.textContent('[data-testid=progress]'), '48/48');
  const zip = await downloadBytes(page, 'download-zip');
  const files = new Map(readStoredZip(zip.bytes));
  const report = JSON.parse(files.get('report.json'));
  assert.equal(report.report.repeats.n, 3);
  assert.deepEqual(report.report.repeats.pass_k, [1, 3]);
  const acc = report.report.summaries.find((s) => s.model === 'mock-a' && s.metric === 'sentiment_acc');
  assert.equal(acc.sample_count, 24, 'every answer is scored');
  assert.ok(acc.pass_at_k['1'] <= acc.pass_at_k['3'] && acc.pass_hat_k['3'] <= acc.pass_hat_k['1'],
    JSON.stringify(acc));
  const keyword = report.report.summaries.find((s) => s.metric === 'keyword');
  assert.equal(keyword.pass_at_k, undefined, 'an overlap F1 is not a pass/fail metric');
  const perSample = report.report.repeats.samples.filter((s) => s.model === 'mock-a');
  assert.equal(perSample.length, 8);
  assert.ok(perSample.every((s) => s.values.sentiment_acc.length === 3));
  const lines = files.get('results.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 48);
  assert.deepEqual([...new Set(lines.map((l) => l.repeat))].sort(), [0, 1, 2]);
  assert.match(files.get('report.md'), /pass@3/);

  const dir = tmpDir('repeats');
  fs.writeFileSync(path.join(dir, 'report.json'), files.get('report.json'));
  await page.goto(`${site.url}/?mode=view&lang=en`);
  await page.setInputFiles('[data-testid=open-report]', path.join(dir, 'report.json'));
  await page.waitForSelector('[data-testid=viewer-pass-k]');
  const table = await page.textContent('[data-testid=viewer-pass-k]');
  assert.match(table, /pass@1.*pass@3.*pass\^1.*pass\^3/s);
  assert.match(table, /mock-a · sentiment_acc/);

  // the page's Reconcile panel takes each asking as its own case (seed 1 of the
  // simulator: the 48 askings were counted as 16 cases)
  const log = [...files.keys()].find((n) => n.endsWith('.events.jsonl'));
  assert.ok(log, [...files.keys()].join());
  fs.writeFileSync(path.join(dir, log), files.get(log));
  await page.goto(`${site.url}/?lang=en`);
  await page.setInputFiles('[data-testid=reconcile-report]', path.join(dir, 'report.json'));
  await page.setInputFiles('[data-testid=reconcile-events]', path.join(dir, log));
  await page.waitForSelector('[data-testid=reconcile-result]');
  assert.equal(await page.textContent('[data-testid=reconcile-result]'), 'agree');
  assert.match(await page.textContent('section:has([data-testid=reconcile-result])'), /case records4848✓/);
  assert.deepEqual(errors, []);
});
