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
  startSite, launch, newPage, downloadBytes, cli, tmpDir, ROOT, DEMO_DATASET,
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
    await verdictFree();
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

/** The judge's outcome of each case of the run, by id. */
function outcomes() {
  const out = new Map();
  for (const l of fs.readFileSync(path.join(run.out, 'results.jsonl'), 'utf8').trim().split('\n')) {
    const r = JSON.parse(l);
    out.set(r.sample_id, r.metrics.correct.detail.outcome);
  }
  return out;
}

/** The figures beyond the table, as the page shows them for `metric`. */
async function shownDetail(page, metric = 'correct') {
  const d = page.locator(`[data-testid=agree-detail][data-metric=${metric}]`);
  await d.waitFor();
  const text = async (id) => ((await d.locator(`[data-testid=${id}]`).count()) ? d.locator(`[data-testid=${id}]`).textContent() : null);
  return {
    confusion: (await d.locator('[data-testid=agree-confusion]').count()) ? {
      both_pass: await text('confusion-both-pass'),
      verdict_only_pass: await text('confusion-verdict-only-pass'),
      label_only_pass: await text('confusion-label-only-pass'),
      both_fail: await text('confusion-both-fail'),
    } : null,
    ties: await text('agree-ties'),
    reviewers: await d.locator('[data-testid=agree-reviewer]').evaluateAll((rows) => rows.map((r) => [
      r.dataset.reviewer, r.querySelector('[data-testid=agree-reviewer-n]').textContent,
      r.querySelector('[data-testid=agree-reviewer-kappa]').textContent])),
    pairs: await d.locator('[data-testid=agree-pair]').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent))),
  };
}

/** What the page shows for `m`, an agreement.json row of evalpage agree. */
function expectedDetail(m) {
  const ci = (v, c) => (v === null ? '—' : c ? `${v.toFixed(3)} [${c[0].toFixed(3)}, ${c[1].toFixed(3)}]` : v.toFixed(3));
  return {
    confusion: m.confusion ? Object.fromEntries(Object.entries(m.confusion).map(([k, v]) => [k, String(v)])) : null,
    ties: `${m.majority_ties} cases where the reviewers tied (left out)`,
    reviewers: m.per_reviewer.map((r) => [r.reviewer, String(r.n), ci(r.cohen_kappa, r.cohen_kappa_ci95)]),
    pairs: m.reviewer_pairs.map((p) => [`${p.a} · ${p.b}`, String(p.n),
      p.cohen_kappa === null ? `— (${p.undefined})` : p.cohen_kappa.toFixed(3)]),
  };
}

test('the task\'s label set, a stratified sample of 10 from the queue, the time per case, blind throughout', async () => {
  const errors = []; const requests = [];
  const page = await newPage(browser, errors);
  page.on('request', (r) => requests.push(r.url()));
  await openRun(page);
  await page.fill('[data-testid=review-reviewer]', 'dee');
  // the judge's scale, as the task gave it, offered beside pass/fail
  const offered = await page.locator('[data-testid=review-scheme-offer]').allTextContents();
  assert.deepEqual(offered, ['pass-fail', 'CORRECT,INCORRECT']);
  await page.click('[data-testid=review-scheme-offer][data-scheme="CORRECT,INCORRECT"]');
  assert.equal(await page.inputValue('[data-testid=review-scheme]'), 'CORRECT,INCORRECT');
  await page.fill('[data-testid=review-sample]', '10');
  await page.click('[data-testid=review-stratified]');
  await page.click('[data-testid=review-start]');
  await page.waitForSelector('[data-testid=review-case]');
  assert.match(await page.textContent('[data-testid=review-progress]'), /^0 \/ 10 labelled/);
  // the queue: the 10 cases still unlabelled, in proportion to the judge's verdicts
  assert.match(await page.textContent('[data-testid=review-queue] summary'), /^10 cases still unlabelled/);
  const queued = (await page.locator('[data-testid=review-queue-case]').allTextContents()).map((t) => t.split(' · ')[0]);
  assert.equal(new Set(queued).size, 10);
  const verdicts = outcomes();
  const passes = [...verdicts.values()].filter((o) => o === 'pass').length;
  const exact = (10 * passes) / verdicts.size;
  const sampled = queued.filter((id) => verdicts.get(id) === 'pass').length;
  assert.ok(sampled === Math.floor(exact) || sampled === Math.ceil(exact), `${sampled} passes sampled, ${exact} expected`);
  // a case picked from the queue is shown; its label by key 2 (INCORRECT)
  await page.click('[data-testid=review-queue] summary');
  await page.locator('[data-testid=review-queue-case]').nth(3).click();
  await page.waitForFunction((id) => document.querySelector('[data-testid=review-case-id]')?.textContent === `Case ${id} · mock`, queued[3]);
  // the case as the model was asked it, and its reference answer
  const sample = fs.readFileSync(path.join(run.dir, 'data.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((l) => l.sample_id === queued[3]);
  assert.equal(await page.textContent('[data-testid=review-input]'), sample.question);
  assert.equal(await page.textContent('[data-testid=review-reference]'), sample.expected);
  await page.keyboard.press('2');
  await page.waitForFunction(() => document.querySelector('[data-testid=review-progress]')?.textContent.startsWith('1 / 10'));
  assert.match(await page.textContent('[data-testid=review-time]'), /^ · \d+\.\d s per case$/);
  assert.equal(await page.locator('[data-testid=review-queue-case]').count(), 9);
  for (let n = 2; n <= 10; n += 1) {
    assert.equal(await page.locator('[data-testid=review-verdict]').count(), 0);
    assert.ok(!/GRADE: (IN)?CORRECT|"verdict"/.test(await page.content()), 'no judge answer in the page');
    await page.keyboard.press(n % 3 === 0 ? '2' : '1');
    await page.waitForFunction((k) => document.querySelector('[data-testid=review-progress]')?.textContent.startsWith(`${k} / 10`), n);
  }
  await page.waitForSelector('[data-testid=review-done]');
  assert.equal(await page.locator('[data-testid=review-queue]').count(), 0, 'nothing left in the queue');
  await page.click('[data-testid=review-stop]');
  assert.equal((await shownFigures(page)).n, '10');
  assert.match(await page.textContent('[data-testid=agree-detail] summary'), /^correct · mock · CORRECT,INCORRECT · 1 reviewers$/);

  // the labels are the judge's own, and evalpage agree reads them the same way
  const labels = await downloadBytes(page, 'review-download-jsonl');
  const events = labels.bytes.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(new Set(events.map((e) => e.label)), new Set(['CORRECT', 'INCORRECT']));
  assert.deepEqual(events.map((e) => e.case_id).sort(), [...queued].sort());
  assert.ok(events.every((e) => e.seconds >= 0 && e.blind === true && e.shown_auto_verdict === null));
  const agreement = JSON.parse((await downloadBytes(page, 'review-download-agreement')).bytes.toString('utf8'));
  const dir = tmpDir('review-categories');
  fs.writeFileSync(path.join(dir, 'labels.jsonl'), labels.bytes);
  const r = cli(['agree', run.out, path.join(dir, 'labels.jsonl'), '--scale', 'correct=CORRECT,INCORRECT', '--out', path.join(dir, 'agree')]);
  assert.equal(r.status, 0, r.stderr);
  const fromCli = JSON.parse(fs.readFileSync(path.join(dir, 'agree', 'agreement.json'), 'utf8'));
  close(fromCli.metrics, agreement.metrics, 'categories');
  assert.equal(fromCli.metrics[0].scheme, 'CORRECT,INCORRECT');
  assert.equal(fromCli.metrics[0].n, 10);
  const origin = new URL(site.url).origin;
  assert.deepEqual(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:')), []);
  assert.deepEqual(errors, []);
});

test('two reviewers\' files opened together, then a third label by keyboard re-given: each reviewer, each pair, ties, the confusion table and α as evalpage agree gives them', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await openRun(page);
  const dir = tmpDir('review-team');
  const ev = (id, reviewer, pass, t) => JSON.stringify({ case_id: id, model: 'mock', metric: 'correct', reviewer, label: pass ? 'pass' : 'fail', t });
  const c = (i) => `c${String(i).padStart(2, '0')}`;
  // bo labels c01..c30 (c02 twice: the later label stands, the file keeps both),
  // cy labels c21..c50: they overlap on c21..c30 and disagree on some
  const bo = [ev('c02', 'bo', false, 1), ...Array.from({ length: 30 }, (_, k) => ev(c(k + 1), 'bo', (k + 1) % 3 !== 0, 10 + k))];
  const cy = Array.from({ length: 30 }, (_, k) => ev(c(k + 21), 'cy', (k + 21) % 4 !== 0, 10 + k));
  const boFile = path.join(dir, 'bo.jsonl');
  const cyFile = path.join(dir, 'cy.jsonl');
  fs.writeFileSync(boFile, bo.join('\n') + '\n');
  fs.writeFileSync(cyFile, cy.join('\n') + '\n');
  // bo alone: α undefined, said
  await page.setInputFiles('[data-testid=review-open-labels]', boFile);
  assert.equal((await shownFigures(page)).alpha, '—');
  // cy's file dropped beside it: α appears
  await page.setInputFiles('[data-testid=review-open-labels]', [boFile, cyFile]);
  await page.waitForFunction(() => document.querySelector('[data-testid=agree-alpha]')?.textContent !== '—');
  assert.match((await page.locator('[data-testid=review-said]').allTextContents()).join('\n'), /^30 labels added/);

  // ana labels the first unlabelled case pass, goes back and gives fail instead
  await page.fill('[data-testid=review-reviewer]', 'ana');
  await page.click('[data-testid=review-blind]');
  await page.click('[data-testid=review-start]');
  await page.waitForSelector('[data-testid=review-verdict]');
  const first = await page.textContent('[data-testid=review-case-id]');
  await page.keyboard.press('p');
  await page.waitForFunction(() => document.querySelector('[data-testid=review-progress]')?.textContent.startsWith('1 / 60'));
  await page.keyboard.press('k');
  await page.waitForFunction((id) => document.querySelector('[data-testid=review-case-id]')?.textContent === id, first);
  assert.equal(await page.textContent('[data-testid=review-given]'), 'Your label: pass');
  await page.keyboard.press('f');
  await page.waitForFunction((id) => document.querySelector('[data-testid=review-case-id]')?.textContent !== id, first);
  assert.match(await page.textContent('[data-testid=review-progress]'), /^1 \/ 60/);
  await page.click('[data-testid=review-stop]');
  const labels = await downloadBytes(page, 'review-download-jsonl');
  const all = labels.bytes.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
  const anas = all.filter((e) => e.reviewer === 'ana');
  assert.deepEqual(anas.map((e) => e.label), ['pass', 'fail'], 'the file keeps both of ana\'s labels');
  assert.equal(anas[0].case_id, anas[1].case_id);
  assert.equal(anas[0].shown_auto_verdict !== null, true, 'not blind: the verdict shown is recorded');
  assert.equal(all.filter((e) => e.reviewer === 'bo' && e.case_id === 'c02').length, 2);
  assert.equal(all.length, 31 + 30 + 2);

  const agreement = JSON.parse((await downloadBytes(page, 'review-download-agreement')).bytes.toString('utf8'));
  const anaFile = path.join(dir, 'ana.jsonl');
  fs.writeFileSync(anaFile, anas.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const r = cli(['agree', run.out, boFile, cyFile, anaFile, '--out', path.join(dir, 'agree')]);
  assert.equal(r.status, 0, r.stderr);
  const m = JSON.parse(fs.readFileSync(path.join(dir, 'agree', 'agreement.json'), 'utf8')).metrics[0];
  close(agreement.metrics[0], m, 'page against evalpage agree');
  assert.deepEqual(m.reviewers, ['ana', 'bo', 'cy']);
  assert.equal(m.per_reviewer.find((x) => x.reviewer === 'ana').n, 1, 'ana\'s later label only');
  assert.equal(m.per_reviewer.find((x) => x.reviewer === 'bo').n, 30, 'bo\'s c02 once');
  assert.ok(m.majority_ties > 0, 'bo and cy tie on some cases');
  assert.equal(typeof m.krippendorff_alpha, 'number');
  assert.deepEqual(await shownDetail(page), expectedDetail(m));
  assert.deepEqual(errors, []);
});

test('RAG, retrieval, dialog and imported runs are reviewed in the page as evalpage agree measures them', async () => {
  const errors = [];
  const dir = tmpDir('review-kinds');
  const made = (args, out) => { const r = cli([...args, '--out', out]); assert.equal(r.status, 0, r.stderr); return out; };
  const rag = made(['run', '--dataset', DEMO_DATASET, '--provider', 'demo'], path.join(dir, 'rag'));
  const retrieval = made(['run', '--retrieval', '--dataset', path.join(ROOT, 'www/demo/demo_retrieval.jsonl'), '--k', '3'], path.join(dir, 'retrieval'));
  const dialog = made(['run', '--dialogs', path.join(ROOT, 'www/demo/demo_dialogs.jsonl'), '--provider', 'demo'], path.join(dir, 'dialog'));
  const promptfoo = path.join(ROOT, 'crates/core/tests/data/import/promptfoo/out.json');
  const imported = made(['import', promptfoo], path.join(dir, 'imported'));
  const kinds = [
    { name: 'rag', open: [path.join(rag, 'eval_rag_report.json')], run: rag },
    { name: 'retrieval', open: [path.join(retrieval, 'eval_retrieval_report.json')], run: retrieval },
    { name: 'dialog', open: ['dialog_trace.jsonl', 'turn_eval.jsonl', 'metrics_summary.json', 'run_manifest.json'].map((n) => path.join(dialog, n)), run: dialog },
    { name: 'import', open: [promptfoo], run: imported },
  ];
  for (const k of kinds) {
    const page = await newPage(browser, errors);
    await page.goto(`${site.url}/?mode=view&lang=en`);
    await page.setInputFiles('[data-testid=open-report]', k.open);
    await page.waitForSelector('[data-testid=review]');
    const metric = await page.inputValue('[data-testid=review-metric]');
    await page.fill('[data-testid=review-reviewer]', 'ana');
    await page.click('[data-testid=review-start]');
    await page.waitForSelector('[data-testid=review-case]');
    for (const [i, key] of ['p', 'f', 'p'].entries()) {
      await page.keyboard.press(key);
      await page.waitForFunction((n) => document.querySelector('[data-testid=review-progress]')?.textContent.startsWith(`${n} / `), i + 1);
    }
    await page.click('[data-testid=review-stop]');
    // one row per model (the import has two): 3 labels in all
    await page.waitForSelector(`[data-testid=agree-row][data-metric="${metric}"]`);
    const ns = await page.locator(`[data-testid=agree-row][data-metric="${metric}"] [data-testid=agree-n]`).allTextContents();
    assert.equal(ns.reduce((a, n) => a + Number(n), 0), 3, k.name);
    const labels = await downloadBytes(page, 'review-download-jsonl');
    const agreement = JSON.parse((await downloadBytes(page, 'review-download-agreement')).bytes.toString('utf8'));
    const file = path.join(dir, `${k.name}.labels.jsonl`);
    fs.writeFileSync(file, labels.bytes);
    const r = cli(['agree', k.run, file, '--out', path.join(dir, `${k.name}-agree`)]);
    assert.equal(r.status, 0, `${k.name}: ${r.stderr}`);
    const fromCli = JSON.parse(fs.readFileSync(path.join(dir, `${k.name}-agree`, 'agreement.json'), 'utf8'));
    close(fromCli.metrics, agreement.metrics, k.name);
    assert.equal(fromCli.metrics[0].metric, metric, k.name);
    await page.close();
  }
  assert.deepEqual(errors, []);
});
