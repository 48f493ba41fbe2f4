// End-to-end: the retrieval and dialog modes get the whole runner, as the RAG
// check and tasks have it. Against an `evalpage mock-server --require-key`
// (an endpoint behind a bearer key) the typed key goes with every request
// to that origin and to no other; a reload in the middle of a run offers it
// back, and resuming sends only the unsettled jobs and finishes with the
// uninterrupted run's numbers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import {
  startSite, startMock, launch, newPage, waitStatus, downloadBytes, readStoredZip, cli, tmpDir, dumpIndexedDb, ROOT,
} from './helpers.mjs';

/** Waits (bounded) until `cond()` holds. */
async function until(cond, what, ms = 30000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const KEY = 'sk-e2e-MODES-LAUNCH-kQvR';
const CASES = path.join(ROOT, 'www/demo/demo_retrieval.jsonl');
const DIALOGS = path.join(ROOT, 'www/demo/demo_dialogs.jsonl');

let site; let browser;
before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

/** Every POST the page sends to `origin`: its Authorization header. */
function posts(page, origin) {
  const seen = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().startsWith(origin)) seen.push(r.headers().authorization);
  });
  return seen;
}

/** The first number of a `done/total` progress text. */
const settledOf = (text) => Number(text.match(/(\d+)\/\d+/)[1]);

test('retrieval: a key-protected endpoint gets the key; a reload mid-run is resumed sending only the unsettled cases', async () => {
  const A = await startMock(['--require-key', KEY, '--latency-ms', '150']);
  const B = await startMock();
  try {
    const page = await newPage(browser, []);
    await page.goto(`${site.url}/?lang=en&mode=retrieval`);
    await page.waitForSelector('[data-testid=retrieval-dataset-summary]');
    const origin = new URL(A.url).origin;
    const first = posts(page, origin);
    await page.fill('[data-testid=retrieval-url]', `${A.url}/retrieve`);
    await page.fill('[data-testid=retrieval-key]', KEY);
    await page.fill('[data-testid=retrieval-concurrency]', '1');
    await page.click('[data-testid=retrieval-start]');
    await page.waitForFunction(() => {
      const m = (document.querySelector('[data-testid=retrieval-progress]')?.textContent ?? '').match(/(\d+)\/\d+/);
      return m && Number(m[1]) >= 3;
    });
    assert.ok(first.length > 0 && first.every((a) => a === `Bearer ${KEY}`), 'the key goes with every request');

    await page.reload();
    await page.waitForSelector('[data-testid=resume-offer]');
    const offer = await page.textContent('[data-testid=resume-offer]');
    assert.match(offer, /Unfinished retrieval run/);
    assert.ok(offer.includes(origin), 'the offer names the origin');
    const settled = settledOf(offer.match(/\d+\/16/)[0]);
    assert.ok(settled >= 3 && settled < 16, offer);
    const second = posts(page, origin);
    await page.click('[data-testid=resume-run]');
    await waitStatus(page, 'done');
    assert.equal(second.length, 16 - settled, 'only the unsettled cases are sent');
    assert.ok(second.every((a) => a === `Bearer ${KEY}`), 'the resumed run sends the origin\'s own key');
    assert.match(await page.textContent('[data-testid=retrieval-progress]'), /16\/16/);
    const zip = await downloadBytes(page, 'download-zip');
    const files = new Map(readStoredZip(zip.bytes));
    const out = tmpDir('modes-retrieval');
    const run = cli(['run', '--retrieval', '--dataset', CASES, '--k', '5', '--out', out]);
    assert.equal(run.status, 0, run.stderr);
    const fromCli = JSON.parse(fs.readFileSync(path.join(out, 'eval_retrieval_report.json'), 'utf8'));
    const resumed = JSON.parse(files.get('eval_retrieval_report.json'));
    assert.deepEqual(resumed.report.summaries, fromCli.report.summaries, 'the resumed run scores as an uninterrupted one');

    // Another origin has no key of its own: the field empties and nothing goes there with a key.
    await page.fill('[data-testid=retrieval-url]', `${B.url}/retrieve`);
    assert.equal(await page.inputValue('[data-testid=retrieval-key]'), '');
    const toB = posts(page, new URL(B.url).origin);
    await page.click('[data-testid=retrieval-start]');
    await until(() => toB.length === 16, 'the 16 requests to B');
    await waitStatus(page, 'done');
    assert.ok(toB.every((a) => a === undefined), 'no key goes to another origin');
  } finally { A.stop(); B.stop(); }
});

test('dialogs: a key-protected endpoint gets the key; a reload mid-run is resumed sending only the unsettled turns', async () => {
  const A = await startMock(['--dialog-trace', 'field', '--dialogs', DIALOGS, '--require-key', KEY, '--latency-ms', '120']);
  try {
    const origin = new URL(A.url).origin;
    const play = async (page) => {
      await page.goto(`${site.url}/?lang=en&mode=dialog`);
      await page.waitForSelector('[data-testid=dialog-dataset-summary]');
      await page.fill('[data-testid=dialog-url]', A.url);
      await page.fill('[data-testid=dialog-model]', 'evalpage-demo');
      await page.fill('[data-testid=dialog-key]', KEY);
      await page.selectOption('[data-testid=dialog-judge]', 'mock');
      await page.fill('[data-testid=dialog-concurrency]', '1');
      await page.click('[data-testid=dialog-start]');
    };
    // The uninterrupted run: how many turns there are, and its numbers.
    const whole = await newPage(browser, []);
    const all = posts(whole, origin);
    await play(whole);
    await waitStatus(whole, 'done');
    assert.ok(all.length > 0 && all.every((a) => a === `Bearer ${KEY}`), 'every turn carries the key');
    const metrics = async (page) => {
      const zip = await downloadBytes(page, 'download-zip');
      const s = JSON.parse(new Map(readStoredZip(zip.bytes)).get('metrics_summary.json'));
      return { counters: s.counters, metrics: s.metrics };
    };
    const expected = await metrics(whole);
    await whole.close();

    const page = await newPage(browser, []);
    const before = posts(page, origin);
    await play(page);
    await page.waitForFunction(() => {
      const m = (document.querySelector('[data-testid=dialog-progress]')?.textContent ?? '').match(/(\d+)\/\d+/);
      return m && Number(m[1]) >= 2;
    });
    await page.reload();
    await page.waitForSelector('[data-testid=resume-offer]');
    const offer = await page.textContent('[data-testid=resume-offer]');
    assert.match(offer, /Unfinished dialog run/);
    // The turns the journal settled before the reload (each one model call).
    const turns = ((await dumpIndexedDb(page)).match(/record_type\\?":\\?"turn/g) ?? []).length;
    assert.ok(turns > 0 && turns < all.length, `${turns} settled turns of ${all.length}`);
    assert.ok(before.length >= turns);
    const after = posts(page, origin);
    await page.click('[data-testid=resume-run]');
    await waitStatus(page, 'done');
    assert.equal(after.length, all.length - turns, 'only the unsettled turns are sent');
    assert.ok(after.every((a) => a === `Bearer ${KEY}`));
    assert.deepEqual(await metrics(page), expected, 'the resumed run gives the uninterrupted run\'s metrics');
  } finally { A.stop(); }
});
