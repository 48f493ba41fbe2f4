// Soak checks, shared by bench/soak.sh for the CLI and the browser.
//
//   node bench/browser_soak.mjs run <endpoint> <dataset.jsonl> <out-dir> [concurrency timeout_s max_attempts limit_s]
//     the page in headless Chromium (?concurrency=C, endpoint filled in, timeout and
//     max attempts set through the model panel's fields, dataset through the file
//     input), Start, wait for run-status = done, download eval_rag_report.json and the json-seq
//     log into <out-dir>, then check them as below. Gives up after limit_s seconds.
//   node bench/browser_soak.mjs check <label> <dataset.jsonl> <out-dir> <wall_s> [mock.log]
//     checks eval_rag_report.json + eval_rag_report.events.json-seq (or .jsonl) in <out-dir> against the
//     dataset: every case id exactly once per metric in `scores` and exactly once as a
//     `case` record; each case ok or failed with a reason (error + error_detail when
//     llm_call_ok is false); failed_calls / error_cases agree; prints cases, attempts,
//     failures by kind and wall time. With the mock-server's --log, also the attempts
//     the server answered by status (timeouts = attempts - answered: the hangs).
// Exits 1 when a check fails.
import './release_bin.mjs';
import fs from 'node:fs';
import path from 'node:path';

/** Parses a json-seq or JSONL event log. */
function readEvents(dir) {
  const seq = path.join(dir, 'eval_rag_report.events.json-seq');
  if (fs.existsSync(seq)) {
    return fs.readFileSync(seq, 'utf8').split('\x1e').filter((c) => c.trim()).map((c) => JSON.parse(c));
  }
  return fs.readFileSync(path.join(dir, 'eval_rag_report.events.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** What kind a failed call was: `http 500`, `http 429`, `timeout`, or the detail's kind. */
function failureKind(rec) {
  const d = rec.error_detail || {};
  if (d.timeout) return 'timeout';
  if (d.status_code) return `http ${d.status_code}`;
  return d.kind || 'unknown';
}

export function check(label, datasetFile, dir, wallS, mockLog) {
  const problems = [];
  const expect = (ok, what) => { if (!ok) problems.push(what); };
  const ids = fs.readFileSync(datasetFile, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l).id);
  const idSet = new Set(ids);
  expect(idSet.size === ids.length, 'dataset ids are unique');

  const report = JSON.parse(fs.readFileSync(path.join(dir, 'eval_rag_report.json'), 'utf8'));
  const metrics = [...new Set(report.scores.map((s) => s.metric))];
  for (const m of metrics) {
    const seen = new Map();
    for (const s of report.scores.filter((x) => x.metric === m)) seen.set(s.sample_id, (seen.get(s.sample_id) || 0) + 1);
    const missing = ids.filter((id) => !seen.has(id));
    const dup = [...seen].filter(([, n]) => n !== 1).map(([id]) => id);
    const extra = [...seen.keys()].filter((id) => !idSet.has(id));
    expect(!missing.length && !dup.length && !extra.length,
      `scores/${m}: ${missing.length} missing, ${dup.length} duplicated, ${extra.length} unknown (${[...missing, ...dup, ...extra].slice(0, 5)})`);
  }
  expect(metrics.length >= 2, `scores has the accuracy and citation metrics (${metrics})`);

  const events = readEvents(dir);
  expect(events[0]?.record_type === 'meta', 'the log starts with meta');
  expect(events.at(-1)?.record_type === 'summary', 'the log ends with summary');
  expect(events.at(-1)?.status === 'done', `summary status is done (${events.at(-1)?.status})`);
  const cases = events.filter((r) => r.record_type === 'case');
  const count = new Map();
  for (const r of cases) count.set(r.case_id, (count.get(r.case_id) || 0) + 1);
  const missing = ids.filter((id) => !count.has(id));
  const dup = [...count].filter(([, n]) => n !== 1).map(([id]) => id);
  expect(!missing.length && !dup.length && cases.length === ids.length,
    `case records: ${cases.length} for ${ids.length} ids, ${missing.length} missing, ${dup.length} duplicated`);

  let ok = 0; let attempts = 0; const failedBy = {}; const attemptHist = {};
  for (const r of cases) {
    attempts += r.attempts;
    attemptHist[r.attempts] = (attemptHist[r.attempts] || 0) + 1;
    if (r.llm_call_ok) {
      ok += 1;
      expect(typeof r.answer === 'string', `${r.case_id}: ok without an answer`);
    } else {
      expect(r.error_detail && typeof r.error_detail === 'object', `${r.case_id}: failed without error_detail`);
      expect(typeof r.error === 'string' && r.error.length > 0, `${r.case_id}: failed without a reason`);
      const k = failureKind(r);
      failedBy[k] = (failedBy[k] || 0) + 1;
    }
  }
  const failed = cases.length - ok;
  expect(report.metrics.cases === ids.length, `metrics.cases ${report.metrics.cases}`);
  expect(report.metrics.failed_calls === failed, `metrics.failed_calls ${report.metrics.failed_calls} vs ${failed} failed case records`);
  expect(report.report.error_cases.length === failed, `error_cases ${report.report.error_cases.length} vs ${failed}`);

  const lines = [
    `${label}: ${ids.length} cases, ${ok} ok, ${failed} failed; wall ${Number(wallS).toFixed(1)} s`,
    `${label}: attempts ${attempts} (per case: ${Object.entries(attemptHist).map(([a, n]) => `${a}x${n}`).join(' ')})`,
    `${label}: failed cases by last error: ${Object.entries(failedBy).map(([k, n]) => `${k}: ${n}`).join(', ') || 'none'}`,
  ];
  if (mockLog && fs.existsSync(mockLog)) {
    // One line per request: `POST /v1/chat/completions -> 200 (ok; ...)`. A hang is only
    // logged when it answers after 120 s, long after the client gave up, so hangs are
    // counted as the attempts the server did not answer at once with 200, 500 or 429.
    const by = { ok: 0, 'injected 500': 0, 'injected 429': 0 };
    for (const l of fs.readFileSync(mockLog, 'utf8').split('\n')) {
      const m = l.match(/POST \/v1\/chat\/completions -> \d+ \(([^;]+);/);
      if (m && m[1] in by) by[m[1]] += 1;
    }
    const timeouts = attempts - by.ok - by['injected 500'] - by['injected 429'];
    lines.push(`${label}: attempts by outcome (server log): ok 200: ${by.ok}, http 500: ${by['injected 500']}, `
      + `http 429: ${by['injected 429']}, timeout (injected hang): ${timeouts}`);
    expect(by.ok >= ok, `server answered ${by.ok} requests with a normal 200 but ${ok} cases are ok`);
  }
  for (const l of lines) console.log(l);
  if (problems.length) {
    console.log(`${label}: CHECK FAILED (${problems.length}):\n  ${problems.slice(0, 20).join('\n  ')}`);
    return false;
  }
  console.log(`${label}: checks passed (each id once per metric in scores and once as a case record; every failure has error_detail)`);
  return true;
}

async function runBrowser(endpoint, dataset, out, c = '16', timeoutS = '2', maxAttempts = '4', limitS = '900') {
  const { startSite, launch, newPage, waitStatus, useEndpoint, download } = await import('../tests/e2e/helpers.mjs');
  const limit = Number(limitS) * 1000;
  const n = fs.readFileSync(dataset, 'utf8').split('\n').filter((l) => l.trim()).length;
  const site = await startSite();
  const browser = await launch();
  // Whatever happens, stop by ourselves.
  const guard = setTimeout(() => { console.log(`browser: gave up after ${limitS} s`); process.exit(2); }, limit + 60000);
  try {
    const errors = [];
    const page = await newPage(browser, errors);
    await page.goto(`${site.url}/?lang=en&concurrency=${c}`);
    await useEndpoint(page, endpoint);
    for (const [label, v] of [['Timeout (s)', timeoutS], ['Max attempts', maxAttempts]]) {
      const input = page.getByLabel(label);
      await input.fill(String(v));
      await input.dispatchEvent('change');
      if ((await input.inputValue()) !== String(v)) throw new Error(`could not set ${label} to ${v}`);
    }
    if ((await page.inputValue('[data-testid=concurrency]')) !== String(c)) throw new Error('?concurrency was not applied');
    await page.setInputFiles('[data-testid=dataset-file]', dataset);
    await page.waitForFunction((k) => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes(k), `${n} valid`);
    const t0 = Date.now();
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done', limit);
    const wall = (Date.now() - t0) / 1000;
    fs.mkdirSync(out, { recursive: true });
    for (const id of ['download-report', 'download-events']) {
      const f = await download(page, id);
      fs.writeFileSync(path.join(out, f.name), f.text);
    }
    if (errors.length) console.log(`browser: page errors: ${errors.slice(0, 5).join(' | ')}`);
    console.log(`browser: progress ${await page.textContent('[data-testid=progress]')}, concurrency ${c} (at most 6 connections per origin), timeout ${timeoutS} s, max attempts ${maxAttempts}`);
    return wall;
  } finally {
    clearTimeout(guard);
    await browser.close();
    site.stop();
  }
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'check') {
  const [label, dataset, dir, wall, mockLog] = args;
  process.exit(check(label, dataset, dir, wall, mockLog) ? 0 : 1);
} else if (mode === 'run') {
  const [endpoint, dataset, out, c, timeoutS, maxAttempts, limitS, mockLog] = args;
  const wall = await runBrowser(endpoint, dataset, out, c, timeoutS, maxAttempts, limitS);
  fs.writeFileSync(path.join(out, 'wall_s'), String(wall));
  process.exit(check('browser', dataset, out, wall, mockLog) ? 0 : 1);
} else {
  console.error('usage: browser_soak.mjs run <endpoint> <dataset> <out> [c timeout_s max_attempts limit_s mock.log] | check <label> <dataset> <dir> <wall_s> [mock.log]');
  process.exit(64);
}
