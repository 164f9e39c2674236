// When a supervised server's process exits, then the supervisor says so with the wait before it starts it again (the
// wait doubles with each death of the window, up to its cap), a start that fails counts as a death, the restarted
// server counts as back only once it answers, and the deaths that make a crash loop end supervision with one line.
// A fake server stands for the process, and the waits are shortened (the real ones: embedded-supervisor.ts).
import type { EmbeddedDatabase, ExitStatus } from "../../src/db/embedded-server";
import { EmbeddedSupervisor } from "../../src/db/embedded-supervisor";

/** A server whose process the test ends (die) and whose restarts fail while `failStarts` is above 0. */
function fakeServer(state: { failStarts: number; started: FakeServer[] }): FakeServer {
  let die!: (status: ExitStatus) => void;
  const server: FakeServer = {
    uri: "mongodb://%2Ftmp%2Ffake.sock/",
    kind: "ferretdb",
    description: "fake",
    pid: undefined,
    exited: new Promise((resolve) => (die = resolve)),
    die: (status) => die(status),
    async restart() {
      if (state.failStarts > 0) {
        state.failStarts--;
        throw new Error("the socket is busy");
      }
      const next = fakeServer(state);
      state.started.push(next);
      return next;
    },
    stop: async () => die({ code: 0, signal: null }),
  };
  return server;
}
type FakeServer = EmbeddedDatabase & { die(status: ExitStatus): void };

const next = <T>(supervisor: EmbeddedSupervisor, event: "down" | "back" | "gaveUp") =>
  new Promise<T>((resolve) => supervisor.once(event, (...args: unknown[]) => resolve(args as T)));

describe("the embedded database's supervisor", () => {
  it("when the server dies again and again, then each wait doubles up to the cap, failed starts count, and the crash loop gives up in one line", async () => {
    const state = { failStarts: 0, started: [] as FakeServer[] };
    const first = fakeServer(state);
    const supervisor = new EmbeddedSupervisor(first, {
      firstWaitMs: 1,
      maxWaitMs: 4,
      deathsForCrashLoop: 6,
      windowMs: 60_000,
      answering: async () => undefined,
    });
    const waits: number[] = [];
    supervisor.on("down", (_line, waitMs) => waits.push(waitMs));

    let down = next<[string, number]>(supervisor, "down");
    first.die({ code: null, signal: "SIGKILL" });
    expect((await down)[0]).toBe(
      "The embedded FerretDB exited (signal SIGKILL); starting it again on the same data and address in 0 s (death 1 within 60 s; 6 end the service)",
    );
    await next(supervisor, "back");
    expect(supervisor.restarts).toBe(1);
    expect(supervisor.isDown).toBe(false);

    // Two failed starts after the next death: three deaths.
    state.failStarts = 2;
    const back = next<[string, number]>(supervisor, "back");
    state.started.at(-1)!.die({ code: 2, signal: null });
    expect((await back)[1]).toBe(2);
    expect(waits).toEqual([1, 2, 4, 4]);

    const gaveUp = next<[string]>(supervisor, "gaveUp");
    down = next(supervisor, "down");
    state.started.at(-1)!.die({ code: 1, signal: null });
    await down;
    await next(supervisor, "back");
    state.started.at(-1)!.die({ code: 1, signal: null });
    expect((await gaveUp)[0]).toBe(
      "The embedded FerretDB exited (exit code 1): 6 times within 60 s, a crash loop; giving up, the service exits so that its supervisor can take over",
    );
    expect(supervisor.isDown).toBe(true);
    await supervisor.stop();
  });

  it("when supervision stops while the server is down, then it is not started again", async () => {
    const state = { failStarts: 0, started: [] as FakeServer[] };
    const first = fakeServer(state);
    const supervisor = new EmbeddedSupervisor(first, { firstWaitMs: 50 });
    const down = next(supervisor, "down");
    first.die({ code: null, signal: "SIGKILL" });
    await down;
    await supervisor.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(state.started).toEqual([]);
  });
});
