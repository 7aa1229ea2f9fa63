// A regression on purpose, to prove that `--guard` catches one (bench/README.md, "The
// regression guard"): loaded into the API with `BENCH_SLOWDOWN=<share>` (bench/lib/api-process.mjs
// adds `--require` of this file), it makes every millisecond the main thread works cost
// <share> more: every 5 ms it spins for <share> × the time the event loop was busy since
// (1: twice the time), as code that got that much slower on every request and delivery would.
// Proportional to the work done, so a busy machine dilutes it no more than the code itself.
// Never loaded otherwise.
'use strict';
const { performance } = require('node:perf_hooks');

const share = Number(process.env.BENCH_SLOWDOWN);
if (share > 0) {
  let last = performance.eventLoopUtilization();
  setInterval(() => {
    const busyMs = performance.eventLoopUtilization(last).active * share;
    const until = performance.now() + busyMs;
    while (performance.now() < until);
    // From after the spin: the spin itself is not work to slow down.
    last = performance.eventLoopUtilization();
  }, 5).unref();
}
