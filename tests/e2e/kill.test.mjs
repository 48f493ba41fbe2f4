// End-to-end: the journal is write-ahead. Chromium is killed (SIGKILL) in the
// middle of a run at concurrency 2, started again on the same profile, and the run
// is resumed from the offer: every case is answered once, except the calls that
// were in flight when the browser died (at most the concurrency). A loopback proxy
// in front of `evalpage mock-server` counts the requests of each case. The mock
// answers at once, so answers come faster than storage commits: a runner that sent
// the next call before the settled case was saved has sent several more by then.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startMock, startSite, waitStatus, tmpDir, useEndpoint, DEMO_DATASET } from './helpers.mjs';

const N = 40;
const CONCURRENCY = 2;
let site; let mock; let proxy;

/** Forwards every request to `target`; `asked` gets the case id of each chat request. */
function startProxy(target) {
  const asked = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST') {
        const id = body.toString('utf8').match(/\(case (K\d+)\)/);
        asked.push(id ? id[1] : '?');
      }
      try {
        const headers = { ...req.headers };
        delete headers.host;
        const r = await fetch(target + req.url, {
          method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
        });
        const out = Buffer.from(await r.arrayBuffer());
        const h = Object.fromEntries(r.headers);
        delete h['content-encoding']; delete h['content-length']; delete h['transfer-encoding'];
        res.writeHead(r.status, h);
        res.end(out);
      } catch {
        res.destroy();
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}`, asked, stop: () => server.close(),
  })));
}

/** Chromium on a profile folder, with DevTools on a free port; resolves once connected. */
function startChromium(profile) {
  const proc = spawn(process.env.CHROMIUM || '/usr/bin/chromium', [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run', '--remote-debugging-port=0',
    `--user-data-dir=${profile}`, 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = ''; let found = false;
    const timer = setTimeout(() => reject(new Error(`chromium did not start: ${err}`)), 30000);
    proc.stderr.on('data', async (chunk) => {
      err += chunk;
      const m = err.match(/DevTools listening on (ws:\/\/\S+)/);
      if (!m || found) return;
      found = true;
      clearTimeout(timer);
      const browser = await chromium.connectOverCDP(m[1]);
      resolve({ proc, browser });
    });
  });
}

before(async () => {
  site = await startSite();
  mock = await startMock(['--latency-ms', '0']);
  proxy = await startProxy(mock.url);
});
after(() => { proxy?.stop(); mock?.stop(); site?.stop(); });

test('a browser killed mid-run re-asks on resume only the calls that were in flight', async () => {
  const dir = tmpDir('kill');
  const rows = fs.readFileSync(DEMO_DATASET, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const dataset = path.join(dir, 'kill.jsonl');
  fs.writeFileSync(dataset, Array.from({ length: N }, (_, i) => {
    const r = { ...rows[i % rows.length], id: `K${i + 1}` };
    r.q = `${r.q} (case K${i + 1})`;
    return JSON.stringify(r);
  }).join('\n') + '\n');
  const profile = path.join(dir, 'profile');

  const first = await startChromium(profile);
  const page = first.browser.contexts()[0].pages()[0] ?? await first.browser.contexts()[0].newPage();
  await page.goto(`${site.url}/?lang=en&concurrency=${CONCURRENCY}`);
  await useEndpoint(page, proxy.url);
  await page.setInputFiles('[data-testid=dataset-file]', dataset);
  await page.waitForFunction((k) => document.querySelector('[data-testid=dataset-summary]')?.textContent.includes(k), `${N} valid`);
  await page.click('[data-testid=start]');
  // Kill it some way into the run, the moment a call goes out: the case whose
  // answer made room for that call has just settled.
  await new Promise((resolve) => {
    const poll = setInterval(() => {
      if (proxy.asked.length >= 12) { clearInterval(poll); resolve(); }
    }, 1);
  });
  first.proc.kill('SIGKILL');
  await new Promise((r) => first.proc.once('exit', r));
  const before = [...proxy.asked];
  assert.ok(before.length >= 12 && before.length < N, `requests before the kill: ${before.length}`);
  assert.equal(new Set(before).size, before.length, `no case was asked twice before the kill: ${before}`);

  const second = await startChromium(profile);
  try {
    const again = second.browser.contexts()[0].pages()[0] ?? await second.browser.contexts()[0].newPage();
    await again.goto(`${site.url}/?lang=en&concurrency=${CONCURRENCY}`);
    await again.waitForSelector('[data-testid=resume-offer]');
    const offer = await again.textContent('[data-testid=resume-offer]');
    const saved = Number(offer.match(new RegExp(`(\\d+)/${N}`))[1]);
    await again.click('[data-testid=resume-run]');
    await waitStatus(again, 'done');
    assert.equal(await again.textContent('[data-testid=progress]'), `${N}/${N}`);
    const after = proxy.asked.slice(before.length);
    const reasked = after.filter((id) => before.includes(id));
    // Write-ahead: a case is journaled before the next call goes out, so what went
    // out before the kill is the saved cases plus at most the calls in flight.
    assert.ok(before.length - saved <= CONCURRENCY,
      `${before.length} requests went out but only ${saved} cases were saved (concurrency ${CONCURRENCY})`);
    assert.ok(reasked.length <= CONCURRENCY, `re-asked after the resume: ${reasked}`);
    assert.equal(reasked.length, before.length - saved, 'exactly the unsaved calls are asked again');
    assert.deepEqual(new Set([...before, ...after]).size, N, 'every case was asked');
    assert.equal(after.length, N - saved, 'the resume sends only the cases not saved');
  } finally {
    await second.browser.close().catch(() => {});
    second.proc.kill('SIGKILL');
  }
});
