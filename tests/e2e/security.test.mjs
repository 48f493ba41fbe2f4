// End-to-end security checks on the release build in Chromium:
//  - hostile text (dataset fields, a bad line, scripted answers, error bodies) is
//    shown as text and never becomes markup or runs, even with the CSP removed;
//  - the Content-Security-Policy is in the served page and blocks inline script;
//  - the API key is in none of the four downloads, the URL, localStorage, the
//    console, the markup or IndexedDB.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  startMock, startSite, launch, newPage, waitStatus, waitStatusIn, download, parseJsonSeq, tmpDir,
  useEndpoint, watchCsp, dumpIndexedDb, DEMO_DATASET,
} from './helpers.mjs';

// worker-src allows blob: for the engine of the model file on this device
// (@wllama/wllama starts its Web Worker from a blob: URL of its own code).
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
  + "connect-src 'self' http: https:; img-src 'self' data: blob:; worker-src 'self' blob:; object-src 'none'; "
  + "base-uri 'none'; form-action 'none'";

// Each payload sets window.__xss (or calls alert) if it ever runs.
const P = {
  script: '<script>window.__xss=1</script>',
  img: '<img src=x onerror="window.__xss=2;alert(2)">',
  svg: '<svg onload=window.__xss=3>',
  md: '[x](javascript:window.__xss=4)',
  link: '<a href="javascript:window.__xss=5">click</a>',
  iframe: '"><iframe srcdoc="<script>parent.__xss=6</script>"></iframe>',
  style: '<style>/*__xss*/body{display:none}</style><b onmouseover=window.__xss=7>bold</b>',
};
const ALL = Object.values(P).join(' ');

let site; let browser; const dir = tmpDir('security');

before(async () => { site = await startSite(); browser = await launch(); });
after(async () => { await browser?.close(); site?.stop(); });

/** Serves the page with the CSP meta removed, so that only escaping stands between a payload and the DOM. */
async function stripCsp(page) {
  await page.route((url) => !path.extname(url.pathname), async (route) => {
    const res = await route.fetch();
    const body = (await res.text()).replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '');
    assert.ok(!body.includes('Content-Security-Policy"'), 'CSP meta stripped');
    await route.fulfill({ response: res, body });
  });
}

/** Watches for dialogs (dismissing them) and returns the list. */
function watchDialogs(page) {
  const seen = [];
  page.on('dialog', (d) => { seen.push(d.message()); d.dismiss().catch(() => {}); });
  return seen;
}

/** What a payload would have created if it had become markup. */
function injected(page) {
  return page.evaluate(() => {
    const urlAttrs = ['href', 'src', 'action', 'formaction', 'srcdoc', 'data'];
    return {
      xss: window.__xss,
      scripts: [...document.scripts].filter((s) => !/\/init\.js$/.test(s.src)).map((s) => s.outerHTML.slice(0, 80)),
      // Every payload carries the marker `__xss` in an attribute or (script, style) its text.
      elements: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.value.includes('__xss'))
        || (['SCRIPT', 'STYLE'].includes(e.tagName) && e.textContent.includes('__xss'))
        || ['IFRAME', 'FRAME', 'OBJECT', 'EMBED', 'BASE'].includes(e.tagName)).map((e) => e.outerHTML.slice(0, 80)),
      handlers: [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes]
        .filter((a) => /^on/i.test(a.name) || (urlAttrs.includes(a.name) && /javascript:|<script/i.test(a.value)))
        .map((a) => `${e.tagName} ${a.name}`)),
      frames: window.frames.length,
    };
  });
}

/** The inert baseline: nothing but the page's own loader script. */
const CLEAN = { xss: undefined, scripts: [], elements: [], handlers: [], frames: 0 };

/** Runs until done with the given max attempts (through the model panel's field). */
async function setAttempts(page, n) {
  await page.getByLabel('Max attempts').fill(String(n));
}

test('XSS: payloads in the dataset, a bad line and scripted answers are shown as text, never run (CSP removed)', async () => {
  const cases = [
    { id: `X1${P.script}`, q: `Q1 ${P.img} LightRAG支持哪些向量数据库？`, gold: [P.svg, 'Milvus'],
      doc_hint: [`${P.iframe}.md`, '04_supported_databases.md'], tags: [P.script, P.link], metadata: { language: P.svg } },
    { id: `X2${P.iframe}`, q: `Q2 ${P.link} ${P.md}`, gold: [P.script], doc_hint: [P.img], tags: [P.style] },
    { id: `X3${P.svg}`, q: `Q3 ${P.style}`, gold: ['anything'], tags: ['plain'] },
  ];
  const lines = cases.map((c) => JSON.stringify(c));
  lines.splice(1, 0, `{"q": "bad line ${P.img.replace(/"/g, "'")}", ${P.script}`); // not JSON: listed with its text
  lines.push(JSON.stringify({ q: `no gold ${P.iframe}`, gold: P.svg })); // gold is a string
  const file = path.join(dir, `xss-${P.svg.replace(/[/]/g, '')}.jsonl`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const answers = path.join(dir, 'xss_answers.jsonl');
  fs.writeFileSync(answers, cases.map((c, i) => JSON.stringify({
    q: c.q, answer: `A${i + 1} Milvus ${ALL} see [04_supported_databases.md](javascript:window.__xss=4) ${P.md}`,
  })).join('\n'));
  const mock = await startMock(['--answers', answers]);
  try {
    const errors = [];
    const page = await newPage(browser, errors);
    const dialogs = watchDialogs(page);
    await stripCsp(page);
    await page.goto(`${site.url}/?lang=en`);
    assert.equal(await page.locator('meta[http-equiv=Content-Security-Policy]').count(), 0);
    await useEndpoint(page, mock.url);
    await page.setInputFiles('[data-testid=dataset-file]', file);
    await page.waitForSelector('[data-testid=line-errors]');
    const lineErrors = await page.textContent('[data-testid=line-errors]');
    assert.match(lineErrors, /:2: not valid JSON/);
    assert.match(lineErrors, /:5: field `gold`/);
    assert.ok(lineErrors.includes(P.svg.replace(/[/]/g, '')), 'the file name with a payload is shown as text');
    // The preview table shows the payloads as text before the run.
    const preview = await page.textContent('[data-testid=dataset-panel]');
    for (const s of [P.script, P.img, P.iframe]) assert.ok(preview.includes(s), `preview shows ${s}`);
    assert.deepEqual(await injected(page), CLEAN);

    await page.click('[data-testid=start]');
    await waitStatus(page, 'done');
    assert.equal(await page.textContent('[data-testid=progress]'), '3/3');
    const table = await page.locator('table.cases').last().textContent();
    for (const s of [cases[0].id, cases[1].id, cases[2].id, P.img, P.link, P.md, P.style, `A1 Milvus ${ALL}`]) {
      assert.ok(table.includes(s), `case table shows ${JSON.stringify(s)} as text`);
    }
    const consoleText = await page.textContent('[data-testid=console]');
    assert.ok(consoleText.includes(cases[1].id) && consoleText.includes(cases[2].id), 'console shows the ids as text');
    const summary = await page.textContent('[data-testid=error-summary]');
    assert.ok(summary.includes(cases[1].id), 'error summary shows the id as text');
    // Downloads carry the payloads as data.
    const report = JSON.parse((await download(page, 'download-report')).text);
    assert.deepEqual([...new Set(report.scores.map((s) => s.sample_id))], cases.map((c) => c.id));
    assert.ok((await download(page, 'download-md')).text.includes('X1'));
    await page.mouse.move(300, 300); await page.mouse.move(600, 600); // would fire onmouseover
    await page.waitForTimeout(300);
    assert.deepEqual(await injected(page), CLEAN);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(errors, []);
  } finally { mock.stop(); }
});

test('XSS: error bodies and broken replies of a hostile endpoint are shown as text, never run (CSP removed)', async () => {
  const server = http.createServer((req, res) => {
    const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': '*', 'Access-Control-Allow-Methods': 'POST, GET, OPTIONS' };
    if (req.method === 'OPTIONS') { res.writeHead(204, cors).end(); return; }
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const q = (JSON.parse(body).messages || []).filter((m) => m.role === 'user').at(-1)?.content || '';
      if (q.startsWith('E500')) res.writeHead(500, { ...cors, 'Content-Type': 'text/html' }).end(`<html><body>${ALL}</body></html>`);
      else if (q.startsWith('E400')) res.writeHead(400, { ...cors, 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: ALL, type: P.script } }));
      else if (q.startsWith('BADJSON')) res.writeHead(200, { ...cors, 'Content-Type': 'application/json' }).end(`{"choices": ${ALL}`);
      else res.writeHead(200, { ...cors, 'Content-Type': 'application/json' }).end(JSON.stringify({
        id: 'x', object: 'chat.completion', model: P.script,
        choices: [{ index: 0, message: { role: 'assistant', content: `${ALL} ${P.md}` }, finish_reason: P.img }],
      }));
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const file = path.join(dir, 'hostile.jsonl');
  fs.writeFileSync(file, ['E500 a', 'E400 b', 'BADJSON c', 'OK d'].map((q, i) => JSON.stringify({ id: `H${i + 1}`, q, gold: ['zzz'] })).join('\n'));
  try {
    const errors = [];
    const page = await newPage(browser, errors);
    const dialogs = watchDialogs(page);
    await stripCsp(page);
    await page.goto(`${site.url}/?lang=en`);
    await useEndpoint(page, `http://127.0.0.1:${server.address().port}/v1`);
    await setAttempts(page, 1);
    await page.setInputFiles('[data-testid=dataset-file]', file);
    await page.waitForFunction(() => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes('4'));
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done');
    assert.equal(await page.textContent('[data-testid=metric-failed]'), '3');
    const text = await page.textContent('body');
    const summary = await page.textContent('[data-testid=error-summary]');
    assert.ok(summary.includes(`HTTP 400`) && summary.includes(P.script) && summary.includes(P.img), 'the 400 error message is shown as text');
    assert.match(text, /HTTP 500/);
    assert.ok(text.includes(`${ALL} ${P.md}`), 'the hostile answer is shown as text');
    const seq = parseJsonSeq((await download(page, 'download-events')).text);
    const failed = seq.filter((r) => r.record_type === 'case' && !r.llm_call_ok);
    assert.equal(failed.length, 3);
    assert.ok(failed.every((r) => r.error_detail), 'every failed case has error_detail');
    assert.ok(JSON.stringify(failed[0].error_detail).includes('window.__xss=1'), `the 500 body is kept as data: ${JSON.stringify(failed[0].error_detail)}`);
    assert.deepEqual(await injected(page), CLEAN);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(errors, []);
  } finally { server.close(); }
});

test('CSP: the served page carries the policy, boots at / and /eval/ without violations, and blocks inline script', async () => {
  for (const at of ['/', '/eval/', '/eval']) {
    const errors = [];
    const page = await newPage(browser, errors);
    const csp = await watchCsp(page);
    await page.goto(`${site.url}${at}?lang=en&provider=demo&demo_latency=0&autorun=1`);
    await waitStatus(page, 'done');
    assert.equal(await page.textContent('[data-testid=progress]'), '10/10', at);
    assert.equal(await page.getAttribute('meta[http-equiv=Content-Security-Policy]', 'content'), CSP, at);
    const inline = await page.evaluate(() => [...document.scripts].filter((s) => !s.src).length);
    assert.equal(inline, 0, `${at}: no inline script in the page`);
    assert.deepEqual(await csp.all(), [], `${at}: no CSP violation while booting and running`);

    // An inline script is refused and reported.
    await page.addScriptTag({ content: 'window.__inline = 1;' }).catch(() => {});
    await page.waitForFunction(() => window.__cspViolations.length > 0, null, { timeout: 5000 });
    assert.equal(await page.evaluate(() => window.__inline), undefined, `${at}: inline script did not run`);
    const seen = await csp.all();
    assert.ok(seen.some((v) => /script-src/.test(v)), `${at}: violation reported: ${seen}`);
    // So are inline event handlers.
    await page.evaluate(() => {
      const d = document.createElement('div');
      d.setAttribute('onclick', 'window.__handler = 1'); document.body.append(d); d.click(); d.remove();
    });
    assert.equal(await page.evaluate(() => window.__handler), undefined);
    assert.deepEqual(errors, []);
    await page.context().close();
  }
});

test('CSP: a run against mock-server on 127.0.0.1 works under the policy with no violation', async () => {
  const mock = await startMock();
  try {
    const errors = [];
    const page = await newPage(browser, errors);
    const csp = await watchCsp(page);
    await page.goto(`${site.url}/eval/?lang=en`);
    await useEndpoint(page, mock.url);
    await page.setInputFiles('[data-testid=dataset-file]', DEMO_DATASET);
    await page.click('[data-testid=start]');
    await waitStatus(page, 'done');
    assert.equal(await page.textContent('[data-testid=progress]'), '10/10');
    assert.equal(await page.textContent('[data-testid=metric-failed]'), '0');
    for (const id of ['download-report', 'download-events', 'download-events-jsonl', 'download-md']) await download(page, id);
    assert.deepEqual(await csp.all(), []);
    assert.deepEqual(errors, []);
  } finally { mock.stop(); }
});

test('the API key is absent from the downloads, URL, localStorage, console, markup and IndexedDB', async (t) => {
  // Every part of the key is letters: a digit-only part matched a timestamp or latency by chance.
  const KEY = 'sk-evalpage-LEAKCHECK-qZvXw';
  const mock = await startMock(['--fail-rate', '0.3', '--seed', '3', '--latency-ms', '150']);
  try {
    const errors = [];
    const page = await newPage(browser, errors);
    const logged = [];
    page.on('console', (m) => logged.push(`${m.type()} ${m.text()} ${m.location().url}`));
    const urls = [];
    const auth = [];
    page.on('request', (r) => { urls.push(r.url()); if (r.method() === 'POST') auth.push(r.headers().authorization); });
    await page.goto(`${site.url}/?lang=en`);
    await useEndpoint(page, mock.url);
    await page.fill('[data-testid=api-key]', KEY);
    await page.setInputFiles('[data-testid=dataset-file]', DEMO_DATASET);
    await page.click('[data-testid=start]');
    // While the run goes, whatever is persisted (IndexedDB, localStorage) never holds the key.
    let largest = '';
    // running, or already done on a busy machine: the checks below hold either way
    await waitStatusIn(page, ['running', 'done']);
    while ((await page.textContent('[data-testid=run-status]')) === 'running') {
      const idb = await dumpIndexedDb(page);
      assert.ok(!idb.includes('LEAKCHECK'), 'IndexedDB holds the key during the run');
      assert.ok(!(await page.evaluate(() => JSON.stringify(localStorage))).includes('LEAKCHECK'), 'localStorage during the run');
      if (idb.length > largest.length) largest = idb;
      await page.waitForTimeout(100);
    }
    t.diagnostic(`largest IndexedDB dump during the run: ${largest.length} characters`);
    await waitStatus(page, 'done', 120000);
    assert.ok(auth.length >= 10 && auth.every((h) => h === `Bearer ${KEY}`), 'the key is sent');
    const files = {};
    for (const id of ['download-report', 'download-events', 'download-events-jsonl', 'download-md']) {
      const f = await download(page, id);
      files[f.name] = f.text;
      assert.ok(f.text.length > 0, f.name);
    }
    assert.deepEqual(Object.keys(files).sort(), ['eval_rag_report.events.json-seq', 'eval_rag_report.events.jsonl', 'eval_rag_report.json', 'report.md']);
    const parts = '(LEAKCHECK|qZvXw)';
    for (const [name, text] of Object.entries(files)) {
      assert.ok(!text.includes(KEY), `${name} holds the key`);
      assert.doesNotMatch(text, new RegExp(`sk-evalpage|${parts}`), `${name} holds part of the key`);
    }
    assert.ok(!page.url().includes(KEY));
    assert.ok(urls.every((u) => !u.includes('LEAKCHECK')), 'no request URL holds the key');
    assert.ok(!(await page.evaluate(() => JSON.stringify(localStorage))).includes('LEAKCHECK'), 'localStorage');
    assert.ok(!(await page.evaluate(() => document.documentElement.outerHTML)).includes('LEAKCHECK'), 'outerHTML');
    assert.ok(logged.every((l) => !l.includes('LEAKCHECK')), `console: ${logged.filter((l) => l.includes('LEAKCHECK'))}`);
    const idb = await dumpIndexedDb(page);
    assert.ok(!idb.includes('LEAKCHECK'), 'IndexedDB holds the key');
    // Reload: the key comes back from sessionStorage only, still nowhere else.
    await page.reload();
    await page.waitForSelector('[data-testid=api-key]');
    assert.equal(await page.inputValue('[data-testid=api-key]'), KEY, 'kept for this tab');
    assert.ok(!(await page.evaluate(() => JSON.stringify(localStorage))).includes('LEAKCHECK'));
    assert.ok(!(await dumpIndexedDb(page)).includes('LEAKCHECK'));
    assert.ok(logged.every((l) => !l.includes('LEAKCHECK')));
    assert.deepEqual(errors.filter((e) => e.includes('LEAKCHECK')), []);
  } finally { mock.stop(); }
});
