// The Go tests of the FerretDB patch (`_test.go` files under tools/ferretdb/_added), run in FerretDB's packages as
// the build assembles them (scripts/ferretdb-go-test.sh: the module, every patch, the added files).
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../../src/shared/package-root";

const ADDED = path.join(REPO_ROOT, "tools", "ferretdb", "_added");

function packagesWithTests(dir = ADDED): string[] {
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  const here = entries.some((e) => e.isFile() && e.name.endsWith("_test.go")) ? [path.relative(ADDED, dir)] : [];
  return [...here, ...entries.filter((e) => e.isDirectory()).flatMap((e) => packagesWithTests(path.join(dir, e.name)))];
}

describe("the FerretDB patch's Go tests", () => {
  it("when go test runs every package of the patch that has tests, then they pass", async () => {
    const packages = packagesWithTests();
    expect(packages).toContain("internal/handler/sjson");
    const run = await promisify(execFile)("bash", [path.join(REPO_ROOT, "scripts", "ferretdb-go-test.sh")], {
      env: { ...process.env, FERRETDB_GO_TEST_PACKAGES: packages.join(" ") },
      maxBuffer: 16 * 1024 * 1024,
    });
    for (const pkg of packages)
      expect(run.stdout).toMatch(new RegExp(`^ok\\s+github.com/FerretDB/FerretDB/${pkg}\\s`, "m"));
  }, 300_000);
});
