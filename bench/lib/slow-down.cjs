// A regression on purpose, to prove that `--guard` catches one (bench/README.md, "The
// regression guard"): loaded into the API with `BENCH_SLOWDOWN=<share>` (bench/lib/api-process.mjs
// adds `--require` of this file), it keeps the main thread busy for that share of every 10 ms
// (0.25: 2.5 ms of each 10), as code that got that much slower on every request and delivery
// would. Never loaded otherwise.
'use strict';
const share = Number(process.env.BENCH_SLOWDOWN);
if (share > 0 && share < 1) {
  const busyMs = 10 * share;
  setInterval(() => {
    const until = performance.now() + busyMs;
    while (performance.now() < until);
  }, 10 - busyMs).unref();
}
