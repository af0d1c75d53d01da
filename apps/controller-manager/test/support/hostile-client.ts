// Run as its own process (so its own work of building and encrypting the body does not hold the
// server's event loop): POSTs a body to a webhook URL while it asks /healthz every 20 ms, then
// prints {status, ms, slowestHealthzMs} as one JSON line.
// argv: <webhook url> <healthz url> <ca file> <body file>
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const [url, healthz, caFile, bodyFile] = process.argv.slice(2) as [string, string, string, string];
const ca = readFileSync(caFile, 'utf8');
const body = readFileSync(bodyFile);

function get(target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpRequest(target, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

function post(): Promise<number | string> {
  return new Promise((resolve) => {
    const req = httpsRequest(url, { method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    req.end(body);
  });
}

let probing = true;
let slowest = 0;
const probe = (async () => {
  while (probing) {
    const started = performance.now();
    if ((await get(healthz)) !== 200) slowest = Infinity;
    slowest = Math.max(slowest, performance.now() - started);
    await new Promise((r) => setTimeout(r, 20));
  }
})();
const started = performance.now();
const status = await post();
const ms = performance.now() - started;
probing = false;
await probe;
process.stdout.write(`${JSON.stringify({ status, ms, slowestHealthzMs: slowest })}\n`);
