// End-to-end (issue 10) in the page against `evalpage mock-server`: reasoning
// shown apart from the answer, a truncated answer marked (and counted as a
// failed call when the setting says so), tokens and cost per model, and a
// wrong key that stops the run and says what to fix.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startMock, startSite, launch, newPage, waitStatus, useEndpoint, download,
} from './helpers.mjs';

let site; let browser;
before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

test('reasoning is kept apart, truncation is marked and counted, tokens and cost are shown per model', async () => {
  const mock = await startMock(['--reasoning-style', 'inline', '--finish-reason', 'length']);
  try {
    const errors = [];
    const page = await newPage(browser, errors);
    await page.goto(`${site.url}/?lang=en`);
    await useEndpoint(page, mock.url);
    for (const [id, v] of [['price-in', '2.5'], ['price-out', '10']]) {
      await page.fill(`[data-testid=${id}]`, v);
    }
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done');
    assert.equal(await page.locator('[data-testid=case-truncated]').count(), 10, 'every answer was cut off');
    const report = JSON.parse((await download(page, 'download-report')).text);
    assert.equal(report.metrics.truncated_cases, 10);
    assert.equal(report.metrics.failed_calls, 0, 'scored as they are by default');
    const row = report.report.usage[0];
    assert.ok(row.prompt_tokens > 0 && row.completion_tokens > 0);
    const cost = (row.prompt_tokens * 2.5 + row.completion_tokens * 10) / 1e6;
    assert.ok(Math.abs(row.cost - cost) < 1e-12, `${row.cost} vs ${cost}`);
    assert.equal(await page.locator('[data-testid=usage-row]').count(), 1);
    assert.equal(await page.textContent('[data-testid=usage-cost]'), cost.toFixed(6));
    // No keypoint or document is scored from the reasoning: every answer's text has no <think>.
    assert.ok(report.scores.every((s) => !String(s.detail.answer ?? '').includes('<think>')));

    await page.check('[data-testid=truncated-as-failure]');
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done');
    const again = JSON.parse((await download(page, 'download-report')).text);
    assert.equal(again.metrics.failed_calls, 10, 'the setting counts them as failed calls');
    assert.deepEqual(errors, []);
  } finally { mock.stop(); }
});

test('a wrong key stops the run: the rest is not sent, the page says what to fix', async () => {
  const mock = await startMock(['--fail-status', '401', '--latency-ms', '50']);
  try {
    const errors = [];
    const page = await newPage(browser, errors);
    let posts = 0;
    page.on('request', (r) => { if (r.method() === 'POST') posts += 1; });
    await page.goto(`${site.url}/?lang=en&concurrency=2`);
    await useEndpoint(page, mock.url);
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done');
    assert.ok(posts <= 2, `${posts} requests: only those in flight when the first 401 came back`);
    assert.match(await page.textContent('[data-testid=stopped]'), /stopped at a fatal answer.*Fix it/);
    const report = JSON.parse((await download(page, 'download-report')).text);
    assert.equal(report.metrics.cases, 10, 'every case stays in the denominators');
    assert.ok(report.metrics.not_run_cases >= 8);
    const log = (await download(page, 'download-events-jsonl')).text.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(log.filter((r) => r.record_type === 'error').length, 1, "spec 000's error record");
    assert.deepEqual(errors, []);
  } finally { mock.stop(); }
});
