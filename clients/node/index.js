// SPDX-License-Identifier: MIT
// index.js - start and stop shardlocal (a local DynamoDB with partition-
// level throttling) from Node tests: node:test, Jest and Vitest (their
// global setups: global-setup.js, global-teardown.js). CommonJS, so both
// require() and import work; no dependencies (Node 18+: fetch).
//
//   const { start } = require('shardlocal-node');
//   const server = await start();          // free port, in memory,
//   server.endpoint;                       // virtual clock
//   await server.advance(1);               // one virtual second
//   await server.stop();
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const TARGET = 'DynamoDB_20120810.';

// The binary: options.bin, else $SHARDLOCAL_BIN, else shardlocal on PATH.
function findBinary(bin) {
  const explicit = bin || process.env.SHARDLOCAL_BIN;
  if (explicit) {
    try {
      fs.accessSync(explicit, fs.constants.X_OK);
      return explicit;
    } catch {
      throw new Error(`shardlocal: ${explicit} is not an executable file`);
    }
  }
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const p = path.join(dir || '.', 'shardlocal');
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch { /* not here */ }
  }
  throw new Error('shardlocal not found: put it on PATH, set SHARDLOCAL_BIN, '
    + 'or use a running server (SHARDLOCAL_ENDPOINT)');
}

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

// One admin call (GET/POST /shardlocal/...): parsed JSON, or an Error
// carrying the server's message.
async function admin(endpoint, method, p, body) {
  const r = await fetch(endpoint + p, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  let json;
  try { json = JSON.parse(text); } catch { json = { message: text }; }
  if (!r.ok) throw new Error(`${method} ${p}: HTTP ${r.status}: ${json.message}`);
  return json;
}

// One DynamoDB call in its JSON protocol; shardlocal wants an Authorization
// header but checks no signature.
async function dynamo(endpoint, op, body) {
  const r = await fetch(endpoint + '/', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': TARGET + op,
      authorization: 'AWS4-HMAC-SHA256 Credential=shardlocal/20200101/'
        + 'us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify(body),
  });
  const json = await r.json();
  if (!r.ok) {
    const e = new Error(`${op}: ${json.__type}: ${json.message || json.Message}`);
    e.name = String(json.__type || '').split('#').pop();
    throw e;
  }
  return json;
}

function keyValue(k) {
  if (k === undefined || k === null) return undefined;
  if (typeof k === 'string') return { S: k };
  if (typeof k === 'number' || typeof k === 'bigint') return { N: String(k) };
  if (Buffer.isBuffer(k) || k instanceof Uint8Array) {
    return { B: Buffer.from(k).toString('base64') };
  }
  return k;                                 // an AttributeValue already
}

const tablePath = (table, index) => '/shardlocal/tables/'
  + encodeURIComponent(table)
  + (index ? '/indexes/' + encodeURIComponent(index) : '');

// What start() returns: the endpoint and the admin calls tests use.
class Server {
  constructor(endpoint, child, dir) {
    this.endpoint = endpoint;
    this.port = Number(new URL(endpoint).port);
    this.process = child;                   // null: a server we did not start
    this.dir = dir;
    this.keep = null;                       // tables reset() never deletes
  }

  // GET /shardlocal: version, clock, limits.
  info() { return admin(this.endpoint, 'GET', '/shardlocal'); }

  // Move the virtual clock forward; resolves to the new time in ms.
  async advance(seconds) {
    const r = await admin(this.endpoint, 'POST', '/shardlocal/clock',
      { advance_ms: Math.round(seconds * 1000) });
    return r.now_ms;
  }

  // Throttle the next `count` requests of `op` (read, write, any) on
  // table, or on one partition key of it, with DynamoDB's exception for
  // `cause` (KeyRange by default).
  fault(table, key, { op = 'write', count = 1, cause, fraction } = {}) {
    const body = { table, op };
    if (key !== undefined && key !== null) body.key = keyValue(key);
    if (count !== undefined && count !== null) body.count = count;
    if (fraction !== undefined) body.fraction = fraction;
    if (cause) body.cause = cause;
    return admin(this.endpoint, 'POST', '/shardlocal/faults', body);
  }

  async partitions(table, index) {
    const r = await admin(this.endpoint, 'GET',
      tablePath(table, index) + '/partitions');
    return r.partitions;
  }

  hotkeys(table, n = 10, index) {
    return admin(this.endpoint, 'GET',
      `${tablePath(table, index)}/hotkeys?n=${n}`);
  }

  async tableNames() {
    const names = [];
    let start;
    for (;;) {
      const r = await dynamo(this.endpoint, 'ListTables',
        start ? { ExclusiveStartTableName: start } : {});
      names.push(...(r.TableNames || []));
      if (!r.LastEvaluatedTableName) return names;
      start = r.LastEvaluatedTableName;
    }
  }

  // Remember the tables that exist now: reset() keeps them.
  async baseline() { this.keep = new Set(await this.tableNames()); }

  // Delete the tables created since the baseline, clear the fault rules.
  async reset() {
    if (!this.keep) await this.baseline();
    for (const name of await this.tableNames()) {
      if (this.keep.has(name)) continue;
      try {
        await dynamo(this.endpoint, 'DeleteTable', { TableName: name });
      } catch (e) {
        if (e.name !== 'ResourceNotFoundException') throw e;
      }
    }
    await admin(this.endpoint, 'POST', '/shardlocal/faults', { clear: true });
  }

  // SIGTERM (requests in flight finish), SIGKILL after 5 s. Resolves to
  // the exit code; a server this helper did not start is left running.
  async stop() {
    const child = this.process;
    if (!child) return null;
    this.process = null;
    process.removeListener('exit', child.killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((res) => child.once('exit', res));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
    return child.exitCode;
  }
}

// start({bin, args, endpoint, virtualClock, inMemory, timeoutMs}):
// a Server. With options.endpoint or $SHARDLOCAL_ENDPOINT, that running
// server is used and nothing is started.
async function start(options = {}) {
  const endpoint = options.endpoint || process.env.SHARDLOCAL_ENDPOINT;
  if (endpoint) {
    const s = new Server(endpoint.replace(/\/+$/, ''), null, null);
    await s.baseline();
    return s;
  }
  const bin = findBinary(options.bin);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shardlocal-node.'));
  const portFile = path.join(dir, 'port');
  const argv = ['--host', '127.0.0.1', '--port', '0', '--port-file', portFile,
    '--log-level', 'warn'];
  if (options.inMemory !== false) argv.push('--in-memory');
  else argv.push('--data-dir', path.join(dir, 'data'));
  if (options.virtualClock !== false) argv.push('--virtual-clock');
  argv.push(...(options.args || []));
  const log = fs.openSync(path.join(dir, 'server.log'), 'w');
  const child = spawn(bin, argv, { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  // A test run that ends without stop() must not leave the server behind.
  child.killOnExit = () => child.kill('SIGKILL');
  process.on('exit', child.killOnExit);
  const readLog = () => {
    try { return fs.readFileSync(path.join(dir, 'server.log'), 'utf8').trim(); }
    catch { return ''; }
  };
  const deadline = Date.now() + (options.timeoutMs || 10000);
  let spawnError = null;
  child.once('error', (e) => { spawnError = e; });
  while (Date.now() < deadline && !spawnError && child.exitCode === null) {
    try {
      const port = parseInt(fs.readFileSync(portFile, 'utf8'), 10);
      if (port > 0) {
        const url = `http://127.0.0.1:${port}`;
        const r = await fetch(url + '/');
        if (r.status === 200) {
          const s = new Server(url, child, dir);
          await s.baseline();
          return s;
        }
      }
    } catch { /* not yet */ }
    await sleep(20);
  }
  const why = spawnError ? spawnError.message : readLog() || 'no output';
  await new Server('http://127.0.0.1:0', child, dir).stop();
  throw new Error(`shardlocal did not start (${bin} ${argv.join(' ')}): ${why}`);
}

// stop(server): the same as server.stop().
function stop(server) { return server ? server.stop() : Promise.resolve(null); }

module.exports = { start, stop, Server, findBinary };
