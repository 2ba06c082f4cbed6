import { describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../../src/diff/change.js";
import { CheckMemo, EventView, kindBit } from "../../../src/rules/match/event-view.js";
import { MatchContext } from "../../../src/rules/match/match-context.js";
import { type IndexEntry, RuleIndex } from "../../../src/rules/match/rule-index.js";
import { changeEvent, SCHEDULED } from "../event-builder.js";

const GATE = kindBit("gate");
const PIER = kindBit("pier");

/** The candidates of `event` (with its observation's `moves`) among the entries, and whether in order. */
function candidates(
  entries: IndexEntry[],
  event: ChangeEvent,
  moves?: ChangeEvent[],
): { positions: number[]; ordered: boolean } {
  const view = new EventView(
    event,
    new MatchContext(SCHEDULED, "Europe/Amsterdam"),
    new CheckMemo(0),
    undefined,
    moves,
  );
  const out = [7, 7, 7, 7, 7, 7, 7, 7, 7, 7];
  const ordered = new RuleIndex(entries).candidates(view, out);
  return { positions: out, ordered };
}

describe("RuleIndex: rules naming gates and no flight", () => {
  const entries: IndexEntry[] = [
    { numbers: undefined, gates: ["D7"], kinds: GATE }, // 0
    { numbers: undefined, gates: ["d*"], kinds: GATE }, // 1
    { numbers: undefined, gates: ["E2", "QW1X*"], kinds: GATE }, // 2
    { numbers: undefined, gates: ["D70"], kinds: GATE }, // 3
    { numbers: undefined, kinds: GATE }, // 4: filed by kind
    { numbers: undefined, gates: ["D7"], kinds: PIER }, // 5: another kind
    { numbers: ["KL601"], gates: ["E2"], kinds: GATE }, // 6: filed by number
    { numbers: undefined, gates: [], kinds: GATE }, // 7: no gate: filed by kind
  ];
  const at = (gate: string, parts: Partial<ChangeEvent> = {}) =>
    changeEvent({ kind: "gate", old: "A1", new: gate, current: { gate }, ...parts });

  it("are candidates of an event at one of their gates, exactly or by prefix, in any case", () => {
    expect(candidates(entries, at("D7"))).toEqual({ positions: [4, 7, 6, 0, 1], ordered: false });
    expect(candidates(entries, at("d70"))).toEqual({ positions: [4, 7, 6, 3, 1], ordered: false });
    expect(candidates(entries, at("QW1X-7")).positions).toEqual([4, 7, 6, 2]);
    // Not those of other gates, nor a prefix longer than the gate.
    expect(candidates(entries, at("QW1")).positions).toEqual([4, 7, 6]);
    expect(candidates(entries, at("E22")).positions).toEqual([4, 7, 6]);
  });

  it("are candidates of an event whose observation moved the flight off one of their gates", () => {
    const event = at("F1", { id: "e" });
    const left = at("F1", { id: "left", old: "E2" });
    const elsewhere = at("F1", { id: "later", old: "D7", version: event.version + 1 });
    const pier = changeEvent({ kind: "pier", field: "pier", old: "D7", new: "F" });
    expect(candidates(entries, event, [left, elsewhere, pier]).positions).toEqual([4, 7, 6, 2]);
    // The gate it is at and the one it left, each looked up once.
    expect(candidates(entries, at("E2"), [left]).positions).toEqual([4, 7, 6, 2]);
  });

  it("are no candidates of an event without a gate, and keep the order of one list", () => {
    const event = changeEvent({ kind: "gate", current: null, flight: { flightNames: ["XX1"] } });
    expect(candidates(entries, event)).toEqual({ positions: [4, 7], ordered: true });
    const gated: IndexEntry[] = [
      { numbers: undefined, gates: ["D7"], kinds: GATE },
      { numbers: undefined, gates: ["D7", "d7"], kinds: GATE },
    ];
    const atD7 = changeEvent({ current: { gate: "D7" }, flight: { flightNames: ["XX1"] } });
    expect(candidates(gated, atD7)).toEqual({ positions: [0, 1], ordered: true });
    expect(candidates(gated.slice(1), atD7).positions).toEqual([0]);
    // Two lists (the gate, a prefix of it): the caller restores the order.
    const twoLists: IndexEntry[] = [
      { numbers: undefined, gates: ["D*"], kinds: GATE },
      { numbers: undefined, gates: ["D7"], kinds: GATE },
    ];
    expect(candidates(twoLists, atD7)).toEqual({ positions: [1, 0], ordered: false });
  });
});
