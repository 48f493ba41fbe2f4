// A small static file server for dist/ on 127.0.0.1, used by the end-to-end
// tests and the browser benchmark. Unknown paths without a file extension fall
// back to index.html (the page lives at / and /eval).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.md': 'text/markdown; charset=utf-8', '.jsonl': 'application/jsonl; charset=utf-8',
  '.json': 'application/json',
};

export function serveDir(root, port = 0) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!fs.existsSync(file) && !path.extname(file)) file = path.join(root, 'index.html');
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404).end('not found'); return; }
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(process.argv[2] || 'dist');
  const server = await serveDir(root, Number(process.argv[3] || 8080));
  console.log(`serving ${root} on http://127.0.0.1:${server.address().port}/`);
}
