import { describe, expect, it } from "vitest";
import { PollProgress } from "../../src/detect/poll-progress.js";

describe("PollProgress", () => {
  it("times the commits it sees on its monotonic clock, learning the counter first", async () => {
    let seq: string | undefined = "7";
    let monotonic = 1_000;
    const progress = new PollProgress({ readSeq: async () => seq, monotonic: () => monotonic });
    await progress.refresh();
    // Commit 7 happened at some unknown time: not seen.
    expect(progress.ageMs()).toBeUndefined();
    monotonic = 2_000;
    seq = "8";
    await progress.refresh();
    monotonic = 2_500;
    expect(progress.ageMs()).toBe(500);
    // Its own commit counts at once; the counter it moved is then learnt, not counted again.
    monotonic = 3_000;
    progress.noteCommit();
    seq = "9";
    monotonic = 4_000;
    await progress.refresh();
    expect(progress.ageMs()).toBe(1_000);
    // The counter gone (Redis lost its data) is no commit.
    seq = undefined;
    await progress.refresh();
    expect(progress.ageMs()).toBe(1_000);
  });
});
