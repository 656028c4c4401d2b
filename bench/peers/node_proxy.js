// The users transform as a Node.js proxy: built-in `http` and `JSON` only, no npm packages.
//
//   node node_proxy.js LISTEN_PORT ORIGIN_PORT
//
// GET /users/{size} -> GET http://127.0.0.1:ORIGIN_PORT/{size}.json (keep-alive agent), then
// keyed object -> array sorted by key, each record {objectId: key, ...its members in order},
// records failing the User schema dropped (checks written out below), {"objects": [...]}.
'use strict';
const http = require('http');

const [listenPort, originPort] = process.argv.slice(2).map(Number);
if (!listenPort || !originPort) {
  console.error('usage: node node_proxy.js LISTEN_PORT ORIGIN_PORT');
  process.exit(2);
}
// Keep upstream connections open, as Reshape (libcurl) and nginx (keepalive) do.
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// The User schema by hand. minLength 1 in code points is the same as length >= 1 in UTF-16
// units (a string has a code point exactly when it has a code unit).
function valid(key, r) {
  if (key.length < 1) return false;                                     // objectId minLength 1
  if (typeof r.name !== 'string' || r.name.length < 1) return false;     // required, minLength 1
  if (typeof r.email !== 'string' || !r.email.includes('@')) return false; // pattern "@"
  if (has(r, 'age')) {                                                   // integer, minimum 0
    const a = r.age;
    if (typeof a !== 'number' || !Number.isInteger(a) || a < 0) return false;
  }
  if (has(r, 'tags')) {                                                  // array of strings
    const t = r.tags;
    if (!Array.isArray(t)) return false;
    for (let i = 0; i < t.length; i++) if (typeof t[i] !== 'string') return false;
  }
  if (has(r, 'address')) {                                               // object, string city/zip
    const a = r.address;
    if (!isObject(a)) return false;
    if (has(a, 'city') && typeof a.city !== 'string') return false;
    if (has(a, 'zip') && typeof a.zip !== 'string') return false;
  }
  return true;
}

function transform(doc) {
  if (doc === null) doc = {};
  if (!isObject(doc)) throw new Error('not an object');
  // Default sort compares UTF-16 code units; push ids are ASCII, so that is byte order.
  const keys = Object.keys(doc).sort();
  const objects = [];
  for (const key of keys) {
    const r = doc[key];
    // A member that is not an object would become {objectId, value}: no name, so dropped.
    if (!isObject(r) || !valid(key, r)) continue;
    const out = { objectId: key, ...r }; // objectId first, then the record's members in order
    out.objectId = key;                  // the key wins over a record's own objectId
    objects.push(out);
  }
  return { objects };
}

function fail(res, status, msg) {
  const body = JSON.stringify({ error: msg });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const route = /^\/users\/([A-Za-z0-9_-]+)$/;
const server = http.createServer((req, res) => {
  const m = req.method === 'GET' && route.exec(req.url);
  if (!m) return fail(res, 404, 'not-found');
  const up = http.get({ host: '127.0.0.1', port: originPort, path: `/${m[1]}.json`, agent }, (ures) => {
    const chunks = [];
    ures.on('data', (c) => chunks.push(c));
    ures.on('end', () => {
      if (ures.statusCode !== 200) return fail(res, 502, `upstream ${ures.statusCode}`);
      let body;
      try {
        body = JSON.stringify(transform(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      } catch (e) {
        return fail(res, 502, String(e.message));
      }
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  up.on('error', (e) => fail(res, 502, String(e.message)));
});
server.keepAliveTimeout = 60000;
server.listen(listenPort, '127.0.0.1', () => console.error(`listening on 127.0.0.1:${listenPort}`));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
