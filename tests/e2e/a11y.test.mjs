// End-to-end: accessibility. axe-core (from npm) runs in Chromium over every
// mode of the page — RAG check, task, retrieval, dialogs and the viewer —
// before and after a run (a dialog opened, a viewer row's drill-down shown),
// and no violation of impact `serious` or `critical` is allowed. Then the
// keyboard alone: Tab to Start and Enter runs the demo evaluation, the mode
// tabs switch with Enter and Space, and a viewer row opens with Enter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { startSite, launch, waitStatus, cli, tmpDir, DEMO_DATASET, ROOT } from './helpers.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const BLOCKING = new Set(['serious', 'critical']);

let site; let browser;
before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

/**
 * A page in a context that bypasses the page's Content-Security-Policy, so that
 * axe-core can be injected as a script tag; uncaught page errors go to `errors`.
 */
async function axePage(errors) {
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  return page;
}

/** Runs axe-core over the whole document; returns its violations. */
async function axe(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), impact: n.impact, summary: n.failureSummary })),
    }));
  });
}

/**
 * Checks the page as it is now: logs every violation's rule, impact and node
 * count, and adds a description of each serious or critical one to `failures`
 * (each test asserts it empty at its end, so every state of a mode is checked).
 */
async function check(t, page, where, failures) {
  const violations = await axe(page);
  const counts = violations.map((v) => `${v.id}(${v.impact}):${v.nodes.length}`).join(' ') || 'none';
  t.diagnostic(`${where}: ${counts}`);
  const blocking = violations.filter((v) => BLOCKING.has(v.impact));
  const text = blocking.map((v) => `${v.id} [${v.impact}] ${v.help}\n${v.nodes
    .map((n) => `    ${n.target}\n      ${(n.summary || '').replace(/\n/g, '\n      ')}`).join('\n')}`).join('\n');
  if (blocking.length) failures.push(`${where}: serious or critical axe-core violations:\n${text}`);
}

test('the RAG page: no serious or critical violations before and after a demo run', async (t) => {
  const errors = []; const failures = [];
  const page = await axePage(errors);
  await page.goto(`${site.url}/?lang=en`);
  await page.waitForSelector('[data-testid=start]');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en', '<html lang> follows the page');
  await check(t, page, 'rag', failures);
  await page.goto(`${site.url}/?lang=en&provider=demo&demo_latency=0&autorun=1`);
  await waitStatus(page, 'done');
  await page.waitForSelector('[data-testid=case-row]');
  await check(t, page, 'rag after a run', failures);
  assert.equal(failures.length, 0, failures.join('\n\n'));
  assert.deepEqual(errors, []);
});

test('task mode: no serious or critical violations before and after a mock run', async (t) => {
  const errors = []; const failures = [];
  const page = await axePage(errors);
  await page.goto(`${site.url}/?mode=task&lang=en&demo_latency=0`);
  await page.waitForSelector('[data-testid=task-yaml]');
  await page.waitForFunction(() => document.querySelector('[data-testid=start]')?.disabled === false);
  await check(t, page, 'task', failures);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done');
  await page.waitForSelector('[data-testid=sample-row]');
  await check(t, page, 'task after a run', failures);
  assert.equal(failures.length, 0, failures.join('\n\n'));
  assert.deepEqual(errors, []);
});

test('retrieval mode: no serious or critical violations before and after a run', async (t) => {
  const errors = []; const failures = [];
  const page = await axePage(errors);
  await page.goto(`${site.url}/?mode=retrieval&lang=en`);
  await page.waitForSelector('[data-testid=retrieval-dataset-summary]');
  await check(t, page, 'retrieval', failures);
  await page.click('[data-testid=retrieval-start]');
  await waitStatus(page, 'done');
  await page.waitForSelector('[data-testid=case-row]');
  await check(t, page, 'retrieval after a run', failures);
  assert.equal(failures.length, 0, failures.join('\n\n'));
  assert.deepEqual(errors, []);
});

test('dialog mode: no serious or critical violations before and after a run, a conversation open', async (t) => {
  const errors = []; const failures = [];
  const page = await axePage(errors);
  await page.goto(`${site.url}/?mode=dialog&lang=en`);
  await page.waitForSelector('[data-testid=dialog-dataset-summary]');
  await check(t, page, 'dialog', failures);
  await page.click('[data-testid=dialog-start]');
  await waitStatus(page, 'done');
  await page.locator('[data-testid=case-row]').first().click();
  await page.waitForSelector('[data-testid=case-detail] [data-testid=dialog-card][open] [data-testid=dialog-turn]');
  await check(t, page, 'dialog after a run', failures);
  assert.equal(failures.length, 0, failures.join('\n\n'));
  assert.deepEqual(errors, []);
});

/**
 * A CLI demo run's report (eval_rag_report.json), to open in the viewer: over the demo dataset,
 * or over `cases` cases made of its lines (ids k000, k001, ...).
 */
function demoReport(cases = 0) {
  const out = tmpDir('a11y-viewer');
  let dataset = DEMO_DATASET;
  if (cases) {
    const lines = fs.readFileSync(DEMO_DATASET, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    dataset = path.join(out, 'cases.jsonl');
    fs.writeFileSync(dataset, Array.from({ length: cases }, (_, i) => JSON.stringify(
      { ...lines[i % lines.length], id: `k${String(i).padStart(3, '0')}` })).join('\n') + '\n');
  }
  const run = cli(['run', '--dataset', dataset, '--provider', 'demo', '--out', out]);
  assert.equal(run.status, 0, run.stderr);
  return path.join(out, 'eval_rag_report.json');
}

test('the viewer: no serious or critical violations, empty and with a report and a drill-down open', async (t) => {
  const errors = []; const failures = [];
  const page = await axePage(errors);
  await page.goto(`${site.url}/?mode=view&lang=en`);
  await page.waitForSelector('[data-testid=open-report]');
  await check(t, page, 'viewer', failures);
  await page.setInputFiles('[data-testid=open-report]', demoReport());
  await page.waitForSelector('[data-testid=case-row]');
  await page.locator('[data-testid=case-row]').first().click();
  await page.waitForSelector('[data-testid=case-detail]');
  await check(t, page, 'viewer with a report', failures);
  // A dialog run's files: the summary, the conversations, a row's conversation open.
  const dialogs = tmpDir('a11y-viewer-dialogs');
  const run = cli(['run', '--dialogs', path.join(ROOT, 'www/demo/demo_dialogs.jsonl'), '--provider', 'demo', '--out', dialogs]);
  assert.equal(run.status, 0, run.stderr);
  await page.setInputFiles('[data-testid=open-report]',
    ['dialog_trace.jsonl', 'turn_eval.jsonl', 'metrics_summary.json'].map((n) => path.join(dialogs, n)));
  await page.waitForSelector('[data-testid=dialog-results]');
  await page.locator('[data-testid=case-row]').first().click();
  await page.waitForSelector('[data-testid=case-detail] [data-testid=dialog-turn]');
  await check(t, page, 'viewer with a dialog run', failures);
  // A task run's report with its results: the task grid's cell in the drill-down.
  const task = tmpDir('a11y-viewer-task');
  const tr = cli(['run', '--task', 'event_eval', '--dataset', path.join(ROOT, 'www/demo/tasks/event_eval.jsonl'), '--mock', '--out', task]);
  assert.equal(tr.status, 0, tr.stderr);
  await page.setInputFiles('[data-testid=open-report]', ['report.json', 'results.jsonl'].map((n) => path.join(task, n)));
  await page.waitForFunction(() => !document.querySelector('[data-testid=dialog-results]'));
  await page.locator('[data-testid=case-row]').first().click();
  await page.waitForSelector('[data-testid=task-cell]');
  await check(t, page, 'viewer with a task run', failures);
  assert.equal(failures.length, 0, failures.join('\n\n'));
  assert.deepEqual(errors, []);
});

/** Presses Tab until the focused element matches `selector`; fails after `max` presses. */
async function tabTo(page, selector, max = 80) {
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return i + 1;
  }
  throw new Error(`${selector} not reached with ${max} presses of Tab`);
}

test('the keyboard alone: Start runs the demo, the mode tabs switch, a viewer row opens', async () => {
  const errors = [];
  const page = await axePage(errors);
  await page.goto(`${site.url}/?lang=en&provider=demo&demo_latency=0`);
  await page.waitForSelector('[data-testid=start]');
  await tabTo(page, '[data-testid=start]');
  await page.keyboard.press('Enter');
  await waitStatus(page, 'done');
  await page.waitForSelector('[data-testid=case-row]');

  // The mode tabs: reached from the top of the page, operated by Enter and Space.
  await page.goto(`${site.url}/?lang=en`);
  await page.waitForSelector('[data-testid=start]');
  await tabTo(page, '[data-testid=mode-task]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=task-yaml]');
  assert.equal(await page.getAttribute('[data-testid=mode-task]', 'aria-selected'), 'true');
  await page.focus('[data-testid=mode-task]');
  await tabTo(page, '[data-testid=mode-retrieval]');
  await page.keyboard.press(' ');
  await page.waitForSelector('[data-testid=retrieval-dataset-summary]');
  assert.equal(await page.getAttribute('[data-testid=mode-retrieval]', 'aria-selected'), 'true');

  // The viewer (300 cases, more than are rendered at once): Tab from the search
  // box to a row, on through rows the scrolling renders, Enter opens the
  // drill-down of the focused row; the arrow keys scroll the table.
  await page.goto(`${site.url}/?mode=view&lang=en`);
  await page.waitForSelector('[data-testid=open-report]');
  await page.setInputFiles('[data-testid=open-report]', demoReport(300));
  await page.waitForSelector('[data-testid=case-row]');
  const focusedId = () => page.evaluate(() => document.activeElement?.dataset?.id ?? document.activeElement?.tagName);
  await page.focus('[data-testid=case-search]');
  await tabTo(page, '[data-testid=case-row]');
  assert.equal(await focusedId(), 'k000');
  const rendered = await page.locator('[data-testid=case-row]').count();
  // Each Tab's focus is waited for up to 10 s (it was 2 s: once, in the full
  // suite with the model-file tests in the other lane, Tab 50 was not seen
  // within 2 s; alone, and beside three busy loops, it passes at 2 s).
  for (let i = 1; i <= rendered + 20; i += 1) {
    await page.keyboard.press('Tab');
    await page.waitForFunction((want) => document.activeElement?.dataset?.id === want, `k${String(i).padStart(3, '0')}`,
      { timeout: 10000 }).catch(async () => assert.fail(`Tab ${i} from the first row focused ${await focusedId()}`));
  }
  await page.keyboard.press('Shift+Tab');
  const id = await focusedId();
  assert.equal(id, `k${String(rendered + 19).padStart(3, '0')}`, 'Shift+Tab goes back a row');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=case-detail]');
  assert.ok((await page.textContent('[data-testid=case-detail]')).includes(id), `the drill-down shows ${id}`);
  await page.focus(`[data-testid=case-row][data-id=${id}]`);
  const top = await page.$eval('.vtable', (e) => e.scrollTop);
  for (let i = 0; i < 30; i += 1) await page.keyboard.press('ArrowDown');
  // Keyboard scrolling is animated in Chromium: wait for it to get there.
  const scrolled = await page.waitForFunction((t) => document.querySelector('.vtable').scrollTop > t + 300, top, { timeout: 5000 })
    .then(() => true, () => false);
  assert.ok(scrolled, 'ArrowDown scrolls the table');
  assert.ok(await page.evaluate(() => document.activeElement.closest('.vtable') !== null), 'the focus stays in the table');

  // A click on the page outside the table leaves the rows: scrolling the table
  // with the wheel afterwards re-renders them but does not take the focus back.
  await page.click('h1');
  assert.equal(await focusedId(), 'BODY');
  await page.hover('.vtable');
  const before = await page.$eval('.vtable', (e) => e.scrollTop);
  await page.mouse.wheel(0, 3000);
  await page.waitForFunction((t) => document.querySelector('.vtable').scrollTop > t + 1000, before);
  assert.equal(await focusedId(), 'BODY', 'a scroll after a click elsewhere leaves the focus where the click put it');
  assert.deepEqual(errors, []);
});

test('the review mode: no serious or critical violations while setting up, reviewing and in the agreement table', async (t) => {
  const errors = []; const failures = [];
  const page = await axePage(errors);
  await page.goto(`${site.url}/?mode=view&lang=en&demo=review`);
  await page.waitForSelector('[data-testid=review-agreement]');
  await check(t, page, 'review: set up, agreement shown', failures);
  await page.fill('[data-testid=review-reviewer]', 'visitor');
  await page.click('[data-testid=review-start]');
  await page.waitForSelector('[data-testid=review-case]');
  await page.click('[data-testid=review-queue] summary');
  await check(t, page, 'review: a case, blind, the queue open', failures);
  await page.keyboard.press('p');
  await page.click('[data-testid=review-stop]');
  await check(t, page, 'review: after a label', failures);
  assert.deepEqual(failures, []);
  assert.deepEqual(errors, []);
});
