// End-to-end: *Reuse answers from earlier runs* in the page (the response
// cache in IndexedDB) against `evalpage mock-server`: with the switch on, a
// second run of the same dataset sends no request and scores the same, its
// answers counted as cached at no cost; with it off, every case is sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startMock, startSite, launch, newPage, waitStatus, download, useEndpoint, startAgain,
} from './helpers.mjs';

let site; let mock; let browser;
before(async () => { site = await startSite(); mock = await startMock(); browser = await launch(); });
after(async () => { await browser?.close(); mock?.stop(); site?.stop(); });

const countPosts = (page) => {
  const seen = { n: 0 };
  page.on('request', (r) => { if (r.method() === 'POST' && r.url().includes('/chat/completions')) seen.n += 1; });
  return seen;
};

/**
 * Clicks Start once and returns the report of the run it started. The status
 * can still read `done` from the run before for a moment after the click, and
 * a run answered from the cache can be over within a frame, so a mutation
 * observer notes any status other than `done` first; the run is over when it
 * reads `done` again.
 */
async function runAgain(page, previous) {
  await startAgain(page);
  const report = JSON.parse((await download(page, 'download-report')).text);
  assert.notEqual(report.report.experiment.run.run_id, previous.report.experiment.run.run_id, 'a new run');
  return report;
}

test('a second run with the switch on sends nothing and reports its answers as cached', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?lang=en`);
  await useEndpoint(page, mock.url);
  await page.check('[data-testid=reuse-answers]');
  const posts = countPosts(page);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  assert.equal(posts.n, 10, 'the first run asks every case');
  const first = JSON.parse((await download(page, 'download-report')).text);

  const second = await runAgain(page, first);
  assert.equal(posts.n, 10, 'the second run sends no request');
  assert.deepEqual(second.scores.map((s) => s.value), first.scores.map((s) => s.value));
  assert.equal(second.report.usage[0].cached, 10);
  assert.equal(second.report.usage[0].prompt_tokens, 0, 'cached answers are not this run\'s tokens');
  assert.ok(first.report.usage[0].prompt_tokens > 0);
  const log = (await download(page, 'download-events-jsonl')).text.trim().split('\n').map((l) => JSON.parse(l));
  const cases = log.filter((r) => r.record_type === 'case');
  assert.ok(cases.length === 10 && cases.every((c) => c.cached && c.cached.usage), 'each case record says it was cached');

  // Switched off, every case is sent again.
  await page.uncheck('[data-testid=reuse-answers]');
  const third = await runAgain(page, second);
  assert.equal(posts.n, 20);
  assert.equal(third.report.usage[0].cached, undefined, 'no answer is cached');
  assert.deepEqual(errors, []);
});
