// A small static file server for dist/ on 127.0.0.1, used by the end-to-end
// tests and the browser benchmark. It behaves like a plain static host: the
// site can live under a prefix (`/some/sub/path/`), a folder is answered by its
// index.html, a folder asked for without its trailing slash is redirected to
// the slash form (301, query kept), and anything else missing is a 404. With
// `compress: 'br'`, it answers as a production host does: brotli (quality 11)
// when the browser accepts it, else gzip (level 9); with `compress: 'gzip'` as
// a host without brotli does; each file compressed once.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.md': 'text/markdown; charset=utf-8', '.jsonl': 'application/jsonl; charset=utf-8',
  '.json': 'application/json', '.yaml': 'text/yaml; charset=utf-8',
};

/**
 * Serves `root` at `prefix` (default `/`; e.g. `/some/sub/path/`) on a loopback
 * port (0 = a free one). With `isolated`, the page is cross-origin isolated
 * (COOP same-origin, COEP require-corp), as `scripts/serve.sh` serves it.
 * Resolves with the `http.Server`.
 */
export function serveDir(root, port = 0, { prefix = '/', compress = false, isolated = false } = {}) {
  const packed = new Map();
  const base = `/${prefix.split('/').filter(Boolean).join('/')}/`.replace('//', '/');
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let pathname;
    try { pathname = decodeURIComponent(url.pathname); } catch { res.writeHead(400).end(); return; }
    // The prefix itself without its slash: a host redirects to the folder.
    if (`${pathname}/` === base) { res.writeHead(301, { Location: base + url.search }).end(); return; }
    if (!pathname.startsWith(base)) { res.writeHead(404).end('not found'); return; }
    let file = path.join(root, pathname.slice(base.length));
    if (file !== root && !file.startsWith(root + path.sep)) { res.writeHead(403).end(); return; }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) {
      if (!url.pathname.endsWith('/')) {
        res.writeHead(301, { Location: `${url.pathname}/${url.search}` }).end();
        return;
      }
      file = path.join(file, 'index.html');
    }
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404).end('not found'); return; }
      const headers = { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' };
      if (isolated) {
        headers['Cross-Origin-Opener-Policy'] = 'same-origin';
        headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
      }
      const accepts = String(req.headers['accept-encoding'] || '');
      // compress: 'br' (brotli when accepted, else gzip), 'gzip' (a host without brotli), or off
      const brotli = compress === 'br' && accepts.includes('br');
      const encoding = brotli ? 'br' : compress && accepts.includes('gzip') ? 'gzip' : null;
      if (encoding) {
        const key = `${encoding} ${file}`;
        if (!packed.has(key)) {
          packed.set(key, encoding === 'br'
            ? zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } })
            : zlib.gzipSync(data, { level: 9 }));
        }
        headers['Content-Encoding'] = encoding;
        res.writeHead(200, headers);
        res.end(packed.get(key));
        return;
      }
      res.writeHead(200, headers);
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(process.argv[2] || 'dist');
  const prefix = process.argv[4] || '/';
  const server = await serveDir(root, Number(process.argv[3] || 8080), { prefix });
  console.log(`serving ${root} on http://127.0.0.1:${server.address().port}${prefix}`);
}
