// End-to-end: human review in the viewer (release build, Chromium). A judged
// run (examples/review's task, the mock model and judge, 60 cases, by the CLI)
// is opened in the viewer; a reviewer types their name, clicks Start once and
// labels 50 cases blind with the keyboard only (the automatic verdict is never
// in the page meanwhile); a reload keeps every label; the downloaded labels,
// opened with the run in a new profile, give the same agreement figures, and
// `evalpage agree` on the same files gives the same agreement.json; nothing
// leaves the page's origin. The review demo shows figures on first open; bad
// label files are said, and the rest is kept.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startSite, launch, newPage, downloadBytes, cli, tmpDir, ROOT,
} from './helpers.mjs';

const REVIEW = path.join(ROOT, 'examples/review');

let site; let browser; let run;

/** The judged run of 60 support questions (the review example's, twice over with other ids). */
function judgedRun() {
  const dir = tmpDir('review-run');
  const lines = fs.readFileSync(path.join(REVIEW, 'support_judged.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const data = Array.from({ length: 60 }, (_, i) => ({ ...lines[i % lines.length], sample_id: `c${String(i + 1).padStart(2, '0')}` }));
  fs.writeFileSync(path.join(dir, 'data.jsonl'), data.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const out = path.join(dir, 'run');
  const r = cli(['run', '--task', path.join(REVIEW, 'support_judged.yaml'), '--dataset', path.join(dir, 'data.jsonl'), '--mock', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  return { dir, out, files: [path.join(out, 'report.json'), path.join(out, 'results.jsonl')] };
}

before(async () => { site = await startSite(); browser = await launch(); run = judgedRun(); });
after(async () => { await browser?.close(); site?.stop(); });

/** Opens the run in the viewer of `page`. */
async function openRun(page) {
  await page.goto(`${site.url}/?mode=view&lang=en`);
  await page.setInputFiles('[data-testid=open-report]', run.files);
  await page.waitForSelector('[data-testid=review]');
}

/** The agreement row of `metric` as the page shows it. */
async function shownFigures(page, metric = 'correct') {
  const row = page.locator(`[data-testid=agree-row][data-metric=${metric}]`);
  await row.waitFor();
  const cell = (id) => row.locator(`[data-testid=${id}]`).textContent();
  return {
    n: await cell('agree-n'), kappa: await cell('agree-kappa'), tpr: await cell('agree-tpr'),
    tnr: await cell('agree-tnr'), corrected: await cell('agree-corrected'), alpha: await cell('agree-alpha'),
  };
}

const close = (a, b, where) => {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(Math.abs(a - b) < 1e-12, `${where}: ${a} != ${b}`);
  } else if (Array.isArray(a) || (a && typeof a === 'object')) {
    assert.equal(Array.isArray(a), Array.isArray(b), where);
    const keys = new Set([...Object.keys(a), ...Object.keys(b ?? {})]);
    for (const k of keys) close(a[k], b?.[k], `${where}.${k}`);
  } else {
    assert.deepEqual(a, b, where);
  }
};

test('50 cases labelled blind by keyboard: kept across a reload, the same figures in a new profile and from evalpage agree', async () => {
  const errors = []; const requests = [];
  const page = await newPage(browser, errors);
  page.on('request', (r) => requests.push(r.url()));
  await openRun(page);
  await page.fill('[data-testid=review-reviewer]', 'ana');
  await page.selectOption('[data-testid=review-metric]', 'correct');
  assert.equal(await page.isChecked('[data-testid=review-blind]'), true, 'blind by default');
  await page.click('[data-testid=review-start]');
  await page.waitForSelector('[data-testid=review-case]');
  // blind: no verdict anywhere in the page, the viewer's summary and cases hidden
  const verdictFree = async () => {
    assert.equal(await page.locator('[data-testid=review-verdict]').count(), 0);
    assert.equal(await page.locator('[data-testid=viewer-summary]').count(), 0);
    assert.equal(await page.locator('[data-testid=case-table], [data-testid=viewer-count]').count(), 0);
    assert.equal(await page.locator('[data-testid=review-agreement]').count(), 0);
    const html = await page.content();
    assert.ok(!/GRADE: (IN)?CORRECT/.test(html), 'no judge answer in the page');
  };
  await verdictFree();
  // a person's labels: pass for most, fail every fourth case, a note on one
  const keys = [];
  for (let i = 0; i < 50; i += 1) {
    const id = (await page.textContent('[data-testid=review-case-id]')).replace('Case ', '').split(' · ')[0];
    const key = i % 4 === 3 ? 'f' : 'p';
    if (i === 5) {
      // the note by keyboard too: n goes into it, Escape leaves it
      await page.keyboard.press('n');
      await page.keyboard.type('the steps are in the wrong order');
      await page.keyboard.press('Escape');
    }
    await page.keyboard.press(key);
    keys.push([id, key]);
    await page.waitForFunction((n) => document.querySelector('[data-testid=review-progress]')?.textContent.startsWith(`${n} / 60`), i + 1);
    if (i === 10) await verdictFree();
  }
  assert.equal(new Set(keys.map(([id]) => id)).size, 50, 'each key labelled a new case');
  await page.click('[data-testid=review-stop]');
  const labelled = await shownFigures(page);
  assert.equal(labelled.n, '50');

  // a reload keeps every label
  await page.reload();
  await page.setInputFiles('[data-testid=open-report]', run.files);
  assert.deepEqual(await shownFigures(page), labelled);
  const labels = await downloadBytes(page, 'review-download-jsonl');
  assert.equal(labels.name, 'labels.jsonl');
  const events = labels.bytes.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(events.length, 50);
  for (const e of events) {
    assert.equal(e.reviewer, 'ana'); assert.equal(e.metric, 'correct'); assert.equal(e.blind, true);
    assert.equal(e.shown_auto_verdict, null); assert.ok(e.t > 0); assert.ok(e.seconds >= 0);
  }
  assert.deepEqual(events.map((e) => [e.case_id, e.label === 'pass' ? 'p' : 'f']), keys);
  assert.equal(events[5].note, 'the steps are in the wrong order');
  const seq = await downloadBytes(page, 'review-download-seq');
  assert.ok(seq.bytes.toString('utf8').startsWith('\u001e{'));
  const agreement = JSON.parse((await downloadBytes(page, 'review-download-agreement')).bytes.toString('utf8'));

  // a new profile: the run and the labels file give the same figures
  const dir = tmpDir('review-labels');
  const file = path.join(dir, 'labels.jsonl');
  fs.writeFileSync(file, labels.bytes);
  const other = await newPage(browser, errors);
  other.on('request', (r) => requests.push(r.url()));
  await openRun(other);
  await other.setInputFiles('[data-testid=review-open-labels]', file);
  assert.deepEqual(await shownFigures(other), labelled);
  const again = JSON.parse((await downloadBytes(other, 'review-download-agreement')).bytes.toString('utf8'));
  close(again.metrics, agreement.metrics, 'new profile');

  // the labels in Langfuse's and Phoenix's shapes: read back by the CLI and the page to the same figures
  const langfuse = await downloadBytes(other, 'review-download-langfuse');
  const phoenix = await downloadBytes(other, 'review-download-phoenix');
  assert.equal(JSON.parse(langfuse.bytes.toString('utf8'))[0].dataType, 'BOOLEAN');
  assert.equal(JSON.parse(phoenix.bytes.toString('utf8')).data[0].annotator_kind, 'HUMAN');
  const lfFile = path.join(dir, 'langfuse_scores.json');
  const pxFile = path.join(dir, 'phoenix_annotations.json');
  fs.writeFileSync(lfFile, langfuse.bytes);
  fs.writeFileSync(pxFile, phoenix.bytes);
  const viaLangfuse = cli(['agree', run.out, lfFile, '--out', path.join(dir, 'lf')]);
  assert.equal(viaLangfuse.status, 0, viaLangfuse.stderr);
  close(JSON.parse(fs.readFileSync(path.join(dir, 'lf', 'agreement.json'), 'utf8')).metrics, agreement.metrics, 'from Langfuse');
  const third = await newPage(browser, errors);
  await openRun(third);
  await third.setInputFiles('[data-testid=review-open-labels]', pxFile);
  assert.deepEqual(await shownFigures(third), labelled);

  // the CLI on the same files: the same agreement.json figures
  const out = path.join(dir, 'agree');
  const r = cli(['agree', run.out, file, '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const fromCli = JSON.parse(fs.readFileSync(path.join(out, 'agreement.json'), 'utf8'));
  close(fromCli.metrics, agreement.metrics, 'evalpage agree');
  assert.equal(typeof agreement.metrics[0].cohen_kappa, 'number');
  assert.equal(agreement.metrics[0].cohen_kappa_ci95.length, 2);

  // nothing left the page's origin
  const origin = new URL(site.url).origin;
  const away = requests.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:'));
  assert.deepEqual(away, []);
  assert.deepEqual(errors, []);
});

test('the review demo shows agreement figures on first open, as evalpage agree computes them', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${site.url}/?mode=view&lang=en&demo=review`);
  const shown = await shownFigures(page);
  assert.equal(await page.inputValue('[data-testid=review-metric]'), 'correct', 'the judge\'s metric first');
  const dir = tmpDir('review-demo');
  const demo = path.join(ROOT, 'www/demo/review');
  const r = cli(['agree', demo, path.join(demo, 'labels.demo-reviewer.jsonl'), '--out', dir]);
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(fs.readFileSync(path.join(dir, 'agreement.json'), 'utf8')).metrics[0];
  assert.equal(shown.n, String(m.n));
  assert.equal(shown.kappa, `${m.cohen_kappa.toFixed(3)} [${m.cohen_kappa_ci95[0].toFixed(3)}, ${m.cohen_kappa_ci95[1].toFixed(3)}]`);
  assert.equal(shown.corrected, `${m.corrected_pass_rate.toFixed(3)} [${m.corrected_pass_rate_ci95[0].toFixed(3)}, ${m.corrected_pass_rate_ci95[1].toFixed(3)}]`);
  // one reviewer so far: α is undefined, and the page says why
  assert.equal(shown.alpha, '—');
  assert.match(await page.textContent('[data-testid=review-agreement]'), /α needs two or more/);
  // the visitor reviews three cases not blind: the verdict shown, α appears
  await page.fill('[data-testid=review-reviewer]', 'visitor');
  await page.click('[data-testid=review-blind]');
  await page.click('[data-testid=review-start]');
  await page.waitForSelector('[data-testid=review-verdict]');
  for (const key of ['p', 'p', 'f']) await page.keyboard.press(key);
  await page.waitForFunction(() => document.querySelector('[data-testid=review-progress]')?.textContent.startsWith('3 / 48'));
  assert.notEqual((await shownFigures(page)).alpha, '—');
  assert.deepEqual(errors, []);
});

test('label files of another run, with bad lines, are said and the rest is kept', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await openRun(page);
  const dir = tmpDir('review-bad');
  const file = path.join(dir, 'mixed.jsonl');
  const good = { case_id: 'c01', model: 'mock', metric: 'correct', reviewer: 'bo', label: 'pass', t: 1 };
  fs.writeFileSync(file, [
    JSON.stringify(good),
    JSON.stringify({ ...good, case_id: 'elsewhere', t: 2 }),
    JSON.stringify({ ...good, case_id: 'c02', reviewer: undefined, t: 3 }),
    JSON.stringify({ ...good, case_id: 'c03', label: 7, t: 4 }),
    '{"case_id": "c04", "metric": "corr',
  ].join('\n'));
  await page.setInputFiles('[data-testid=review-open-labels]', file);
  await page.waitForSelector('[data-testid=review-said]');
  const said = (await page.locator('[data-testid=review-said]').allTextContents()).join('\n');
  assert.match(said, /3 labels added/);
  assert.match(said, /mixed\.jsonl line 3, field reviewer: missing/);
  assert.match(said, /mixed\.jsonl line 5: the line is cut short/);
  const figures = await shownFigures(page);
  assert.equal(figures.n, '1');
  assert.match(await page.textContent('[data-testid=agree-left-out]'), /1 labels do not match this run · 1 are off their metric's scale/);
  assert.deepEqual(errors, []);
});
