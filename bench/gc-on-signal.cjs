// Preloaded into the service by bench/subscriptions.ts (node --expose-gc --require): on SIGUSR2, a full garbage
// collection, then the process's memory use written as JSON to the file named by BENCH_MEMORY_FILE, so the bench
// reads what subscribers keep rather than garbage not yet collected.
"use strict";
const fs = require("node:fs");

process.on("SIGUSR2", () => {
  global.gc();
  global.gc();
  fs.writeFileSync(process.env.BENCH_MEMORY_FILE, JSON.stringify(process.memoryUsage()));
});
