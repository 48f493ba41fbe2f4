// Shared helpers for the end-to-end tests: the built site on a loopback static
// server, `evalpage mock-server` as the model endpoint, and Chromium via
// playwright-core (the system browser; nothing is downloaded).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDir } from './static-server.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The CLI `cargo test --workspace` built (scripts/test.sh): the end-to-end tests
// need no release build of it. EVALPAGE_BIN names another.
export const BIN = process.env.EVALPAGE_BIN || path.join(ROOT, 'target/debug/evalpage');
export const DEMO_DATASET = path.join(ROOT, 'www/demo/demo_dataset.jsonl');
export const DATA = path.join(ROOT, 'tests/e2e/data');

/** Starts `evalpage mock-server --port 0 ...args` and resolves with its base URL. */
export function startMock(args = []) {
  const proc = spawn(BIN, ['mock-server', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('mock-server did not start')), 10000);
    proc.stdout.on('data', (chunk) => {
      buf += chunk;
      const m = buf.match(/listening on (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve({ url: m[1], stop: () => proc.kill('SIGKILL') }); }
    });
    proc.on('exit', (code) => reject(new Error(`mock-server exited with ${code}`)));
  });
}

/**
 * Serves dist/ on a free loopback port, at `prefix` (default `/`); `url` is the
 * site's address without the trailing slash (`http://127.0.0.1:PORT/some/sub`).
 */
export async function startSite(prefix = '/', { compress = null, isolated = false } = {}) {
  const server = await serveDir(path.join(ROOT, 'dist'), 0, { prefix, compress, isolated });
  const at = prefix.replace(/\/+$/, '');
  return { url: `http://127.0.0.1:${server.address().port}${at}`, stop: () => server.close() };
}

/** Launches the system Chromium headless; with `webgpu`, with a software
 * WebGPU adapter (SwiftShader, which Chromium ships) in place of no GPU. */
export function launch({ webgpu = false } = {}) {
  const gpu = webgpu
    ? ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader']
    : ['--disable-gpu'];
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', ...gpu, '--disable-quic', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A new page that fails the test on any uncaught page error. */
export async function newPage(browser, errors) {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  return page;
}

/**
 * Waits until the run status shows `status`; a wait that times out says what
 * the page showed instead (the status, the progress, a start error).
 */
export async function waitStatus(page, status, timeout = 60000) {
  await page.waitForFunction(
    (s) => document.querySelector('[data-testid=run-status]')?.textContent === s, status, { timeout })
    .catch(async (e) => {
      const shown = await page.evaluate(() => ['run-status', 'progress', 'start-error']
        .map((id) => `${id}: ${document.querySelector(`[data-testid=${id}]`)?.textContent ?? '(none)'}`)
        .join('; ')).catch(() => '(the page could not be read)');
      throw new Error(`waited ${timeout} ms for the status "${status}"; the page shows ${shown}`, { cause: e });
    });
}

/**
 * Waits until the run status is one of `statuses` and returns it: a wait for a
 * passing state (`running`) must also end when the run has already gone past
 * it (a fast run on a busy machine can be done before the page is polled).
 */
export async function waitStatusIn(page, statuses, timeout = 60000) {
  const handle = await page.waitForFunction(
    (list) => {
      const s = document.querySelector('[data-testid=run-status]')?.textContent;
      return list.includes(s) ? s : null;
    }, statuses, { timeout });
  return handle.jsonValue();
}

/** Clicks a download button and returns the suggested name and the text. */
export async function download(page, testid) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${testid}]`)]);
  const file = await dl.path();
  return { name: dl.suggestedFilename(), text: fs.readFileSync(file, 'utf8') };
}

/** Parses RFC 7464 text strictly: every record is RS, one JSON text, LF. */
export function parseJsonSeq(text) {
  if (!text.startsWith('\x1e')) throw new Error('json-seq must start with RS');
  return text.split('\x1e').slice(1).map((chunk, i) => {
    if (!chunk.endsWith('\n')) throw new Error(`record ${i + 1} does not end with LF`);
    return JSON.parse(chunk);
  });
}

/** Runs the CLI; returns { status, stdout, stderr }. */
export function cli(args, env = {}) {
  const r = spawnSync(BIN, args, { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// The temporary folders of this test file, removed when its process exits
// (EVALPAGE_KEEP_TMP=1 keeps them to look at after a failure).
const made = [];
process.on('exit', () => {
  if (process.env.EVALPAGE_KEEP_TMP === '1') return;
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary folder, removed when the test file's process exits. */
export function tmpDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `evalpage-${prefix}-`));
  made.push(dir);
  return dir;
}

/** report.json without what legitimately differs between two runs (ids, timings, transport). */
export function comparable(reportText) {
  const r = JSON.parse(reportText);
  delete r.report.experiment.run;
  for (const e of r.report.error_cases) { delete e.trace_id; delete e.latency_ms; }
  return r;
}

/** Chooses the OpenAI-compatible provider and fills endpoint and model. */
export async function useEndpoint(page, url, model = 'evalpage-demo') {
  await page.selectOption('[data-testid=provider]', 'openai');
  // The page re-renders the endpoint fields after the provider change; edit them after that.
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=target-origin]')]
    .some((e) => e.textContent.startsWith('http')));
  // The fields commit as they are typed: no blur, no wait.
  await page.fill('[data-testid=endpoint-url]', url);
  await page.fill('[data-testid=model-name]', model);
}

/**
 * Records Content-Security-Policy violations on `page` (call before `goto`): console
 * messages that mention the policy, and `securitypolicyviolation` events, collected
 * by an init script (which the page's CSP does not govern). `all()` returns both.
 */
export async function watchCsp(page) {
  const messages = [];
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) messages.push(m.text()); });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI} ${e.sample || ''}`.trim());
    });
  });
  return {
    messages,
    events: () => page.evaluate(() => window.__cspViolations ?? []),
    all: async () => [...messages, ...(await page.evaluate(() => window.__cspViolations ?? []))],
  };
}

/** Every IndexedDB database of the page, each object store dumped as JSON text. */
export function dumpIndexedDb(page) {
  return page.evaluate(async () => {
    if (!indexedDB.databases) return '[]';
    const out = [];
    for (const { name, version } of await indexedDB.databases()) {
      const db = await new Promise((ok, ko) => {
        const req = indexedDB.open(name, version);
        req.onsuccess = () => ok(req.result); req.onerror = () => ko(req.error);
      });
      const stores = {};
      for (const store of db.objectStoreNames) {
        stores[store] = await new Promise((ok, ko) => {
          const tx = db.transaction(store, 'readonly').objectStore(store);
          const keys = tx.getAllKeys(); const values = tx.getAll();
          values.onsuccess = () => ok({ keys: keys.result, values: values.result });
          values.onerror = () => ko(values.error);
        });
      }
      db.close();
      out.push({ name, version, stores });
    }
    return JSON.stringify(out);
  });
}

/** Clicks a download button and returns the suggested name and the bytes. */
export async function downloadBytes(page, testid) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${testid}]`)]);
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(await dl.path()) };
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 (IEEE) of a buffer, as zip stores it. */
export function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * Reads a zip of stored (uncompressed) entries through its central directory:
 * returns [name, text] pairs in archive order; throws on a compressed entry
 * or a CRC mismatch.
 */
export function readStoredZip(buf) {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd -= 1;
  if (eocd < 0) throw new Error('no end of central directory record');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const out = [];
  for (let i = 0; i < count; i += 1) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central header ${i}`);
    const method = buf.readUInt16LE(at + 10);
    const crc = buf.readUInt32LE(at + 16);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const skip = nameLen + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    if (method !== 0) throw new Error(`${name}: method ${method}, expected stored`);
    if (buf.readUInt32LE(local) !== 0x04034b50) throw new Error(`${name}: bad local header`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + size);
    if (crc32(data) !== crc) throw new Error(`${name}: CRC mismatch`);
    out.push([name, data.toString('utf8')]);
    at += 46 + skip;
  }
  return out;
}

/**
 * Counts, on every DOM change from now on, the elements matching `selector`;
 * `window.__most` holds the most seen at once (a live table's rows in view).
 */
export async function watchMost(page, selector) {
  await page.evaluate((s) => {
    window.__most = 0;
    const count = () => { window.__most = Math.max(window.__most, document.querySelectorAll(s).length); };
    new MutationObserver(count).observe(document.body, { childList: true, subtree: true });
  }, selector);
}

/**
 * Clicks Start once for another run on a page whose last run is done, and
 * waits until that new run is done: the status still reads `done` from the
 * run before for a moment after Start, so it waits to see it leave `done`.
 */
export async function startAgain(page) {
  await page.evaluate(() => {
    window.__leftDone = false;
    new MutationObserver(() => {
      if (document.querySelector('[data-testid=run-status]')?.textContent !== 'done') window.__leftDone = true;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.click('[data-testid=start]');
  await page.waitForFunction(() => window.__leftDone
    && document.querySelector('[data-testid=run-status]')?.textContent === 'done');
}
