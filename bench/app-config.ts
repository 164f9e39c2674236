// The configuration the benches build the app with: the service's defaults (header mode), with the rate limit off
// (a bench is one caller sending thousands of requests).
import type { AppConfig } from "../src/app";
import { parseStatusWorkflow } from "../src/components/projects";
import { loadConfig } from "../src/config";

export const BENCH_APP_CONFIG: AppConfig = loadConfig(
  { RATE_LIMIT_PER_MINUTE: "0" },
  { statusWorkflow: parseStatusWorkflow },
);
