// The configuration tests build an app with: what a test sets (undefined: not set), and for the rest the service's
// defaults (header mode), except the rate limit, which is off (the tests of a file act as one caller).
import type { AppConfig } from "../../src/app";
import { parseStatusWorkflow } from "../../src/components/projects";
import { loadConfig } from "../../src/config";

const DEFAULTS: AppConfig = loadConfig({ RATE_LIMIT_PER_MINUTE: "0" }, { statusWorkflow: parseStatusWorkflow });

export function testAppConfig(config: Partial<AppConfig> = {}): AppConfig {
  const given = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
  return { ...DEFAULTS, ...given };
}
