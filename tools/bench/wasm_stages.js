// Runs the wasm32 stage timer (tools/bench/wasm_stages/lib.rs, built by tools/bench/wasm_stages.sh)
// under Node on trace files and prints each stage's best time and MB/s, summed over the files.
// Usage: node [--cpu-prof] tools/bench/wasm_stages.js [--runs N] [--pkg DIR] FILE…
//        node tools/bench/wasm_stages.js --memory FILE  (the worker's pipeline on the file read in
//        8 MiB pieces, never whole in wasm memory: wasm memory size after load / keep / encode;
//        one file per process, since wasm memory never shrinks)
// Default package dir: target/wasm-stages (the script's output).
'use strict';
const fs = require('fs');
const path = require('path');
const args = process.argv.slice(2);
let runs = 1;
let memory = false;
let pkg = path.resolve('target/wasm-stages');
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') runs = Number(args[++i]);
  else if (args[i] === '--pkg') pkg = path.resolve(args[++i]);
  else if (args[i] === '--memory') memory = true;
  else files.push(args[i]);
}
// The stages are timed in CPU time of this process (user + system; V8's compiler and GC
// threads included), not wall time: the machine is shared.
globalThis.trialscope_cpu_ms = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
};
const m = require(path.join(pkg, 'wasm_stages.js'));
if (memory) {
  const f = files[0];
  const fd = fs.openSync(f, 'r');
  globalThis.trialscope_read = (offset, len) => {
    const b = Buffer.alloc(len);
    const n = fs.readSync(fd, b, 0, len, offset);
    return b.subarray(0, n);
  };
  const c0 = globalThis.trialscope_cpu_ms();
  const r = JSON.parse(m.worker_memory(path.basename(f), fs.statSync(f).size));
  const ms = globalThis.trialscope_cpu_ms() - c0;
  console.log(`${path.basename(f)}: wasm memory MB ${JSON.stringify(r)}, ${ms.toFixed(0)} ms CPU`);
  process.exit(0);
}
const total = new Map();
let cpuAll = 0;
for (const f of files) {
  const bytes = fs.readFileSync(f);
  const c0 = globalThis.trialscope_cpu_ms();
  const rows = JSON.parse(m.stages(path.basename(f), bytes, runs));
  cpuAll += globalThis.trialscope_cpu_ms() - c0;
  for (const r of rows) {
    const t = total.get(r.stage) || { ms: 0, bytes: 0 };
    t.ms += r.best_ms;
    t.bytes += r.bytes;
    total.set(r.stage, t);
  }
}
console.log(`files ${files.length}, runs ${runs} (best CPU time per stage), wasm memory ${(m.memory_bytes() / 1e6).toFixed(1)} MB`);
console.log(`all stages, all runs: ${cpuAll.toFixed(0)} ms of CPU`);
for (const [stage, t] of total) {
  console.log(`${stage.padEnd(28)} ${t.ms.toFixed(1).padStart(9)} ms ${(t.bytes / 1e3 / t.ms).toFixed(1).padStart(8)} MB/s`);
}
