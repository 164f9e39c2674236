// A page's teachers are loaded once before its items complete, so each item's teacher answers at once
// (src/shared/settled-loader.ts, Project.teacher): the loader answers synchronously only what its batch answered,
// never an error, and never a value read before a clear.
import { SettledLoader } from "../../src/shared/settled-loader";

function loaderOf(values: Map<number, string | Error>) {
  const batches: number[][] = [];
  const loader = new SettledLoader<number, string>(async (keys) => {
    batches.push([...keys]);
    return keys.map((key) => values.get(key) ?? new Error(`no ${key}`));
  });
  return { loader, batches };
}

describe("SettledLoader", () => {
  it("when keys are loaded, then later they answer at once with the batch's values, and unloaded keys with a promise", async () => {
    const { loader, batches } = loaderOf(
      new Map([
        [1, "one"],
        [2, "two"],
      ]),
    );
    const first = loader.loadSettled(1);
    expect(first).toBeInstanceOf(Promise);
    await expect(first).resolves.toBe("one");
    expect(loader.loadSettled(1)).toBe("one");
    const other = loader.loadSettled(2);
    expect(other).toBeInstanceOf(Promise);
    await expect(other).resolves.toBe("two");
    expect(batches).toEqual([[1], [2]]);
  });

  it("when a batch answers an error for a key, then that key keeps answering the rejected promise", async () => {
    const { loader } = loaderOf(new Map<number, string | Error>([[1, "one"]]));
    await loader.loadMany([1, 5]);
    expect(loader.loadSettled(1)).toBe("one");
    const failed = loader.loadSettled(5);
    expect(failed).toBeInstanceOf(Promise);
    await expect(failed).rejects.toThrow("no 5");
  });

  it("when a key is cleared, or all are, then it is read again, and a batch begun before the clear does not answer at once", async () => {
    const values = new Map<number, string | Error>([[1, "old"]]);
    const { loader, batches } = loaderOf(values);
    await loader.load(1);
    values.set(1, "new");
    loader.clear(1);
    await expect(loader.loadSettled(1)).resolves.toBe("new");
    expect(loader.loadSettled(1)).toBe("new");

    values.set(1, "newer");
    loader.clearAll();
    expect(loader.loadSettled(1)).toBeInstanceOf(Promise);

    // A batch already reading when the key is cleared: its value is not kept for synchronous answers.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = new SettledLoader<number, string>(async (keys) => {
      await gate;
      return keys.map(() => "read before the clear");
    });
    const inFlight = slow.load(2);
    await new Promise((resolve) => setImmediate(resolve)); // the batch has begun
    slow.clear(2);
    release();
    await expect(inFlight).resolves.toBe("read before the clear");
    expect(slow.loadSettled(2)).toBeInstanceOf(Promise);
    expect(batches.length).toBe(3);
  });

  it("when a key is primed with a value read elsewhere, then it answers that at once and no batch reads it; a key already loading or loaded keeps its own", async () => {
    const { loader, batches } = loaderOf(
      new Map<number, string | Error>([
        [1, "read"],
        [2, "read"],
      ]),
    );
    loader.prime(7, "primed");
    expect(loader.loadSettled(7)).toBe("primed");
    await expect(loader.load(7)).resolves.toBe("primed");

    const loading = loader.load(1);
    loader.prime(1, "primed while loading");
    expect(loader.loadSettled(1)).toBeInstanceOf(Promise);
    await expect(loading).resolves.toBe("read");
    expect(loader.loadSettled(1)).toBe("read");

    await loader.load(2);
    loader.prime(2, "primed after");
    expect(loader.loadSettled(2)).toBe("read");

    // An error or a promise primes the loader as DataLoader does, without a synchronous answer.
    loader.prime(8, new Error("primed error"));
    const failed = loader.loadSettled(8);
    expect(failed).toBeInstanceOf(Promise);
    await expect(failed).rejects.toThrow("primed error");
    expect(batches).toEqual([[1], [2]]);
  });
});
