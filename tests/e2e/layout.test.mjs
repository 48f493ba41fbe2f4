// End-to-end: every mode fits a 1280 px window after a demo run (with its
// results, tables and an opened row): the page never scrolls sideways; long
// cells wrap or clip inside their table. The dialog mode was 1438 px wide (its
// metric columns' headers and the summary's reasons set the width of the
// page's grid).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, launch, newPage, waitStatus } from './helpers.mjs';

let site; let browser;
before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

/** How far the page is wider than its window, px (0 when it fits). */
const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

const MODES = [
  { mode: 'rag', start: 'start', ready: 'dataset-summary' },
  { mode: 'task', start: 'start', ready: 'task-yaml' },
  { mode: 'retrieval', start: 'retrieval-start', ready: 'retrieval-dataset-summary' },
  { mode: 'dialog', start: 'dialog-start', ready: 'dialog-dataset-summary', judge: true },
];

for (const m of MODES) {
  test(`${m.mode} mode fits a 1280 px window after a demo run`, async () => {
    const page = await newPage(browser, []);
    await page.goto(`${site.url}/?lang=en&mode=${m.mode}&demo_latency=0`);
    await page.waitForSelector(`[data-testid=${m.ready}]`);
    if (m.judge) await page.selectOption('[data-testid=dialog-judge]', 'mock');
    await page.click(`[data-testid=${m.start}]`);
    await waitStatus(page, 'done');
    assert.equal(await overflow(page), 0, 'after the run');
    const row = page.locator('tr[data-row]').first();
    if (await row.count()) {
      await row.click();
      assert.equal(await overflow(page), 0, 'with a row opened');
    }
  });
}
