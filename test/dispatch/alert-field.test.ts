import { describe, expect, it } from "vitest";
import { fieldKey, sameValue, valueAfter, valueBefore } from "../../src/dispatch/alert-field.js";
import { Driver, event, MINUTE, rule } from "./dispatch-builder.js";

describe("alert fields", () => {
  it("a state code is a field of its own; the flight itself is the field `flight`", () => {
    expect(fieldKey({ kind: "state", field: "publicFlightState", state: "DEL" })).toBe("state:DEL");
    expect(fieldKey({ kind: "flight", field: "flight" })).toBe("flight");
    expect(fieldKey({ kind: "time", field: "expectedTimeBoarding" })).toBe("expectedTimeBoarding");
  });

  it("presence: the action is the value, before it the opposite", () => {
    expect(valueAfter("state", "withdrawn", ["SCH"])).toBe("withdrawn");
    expect(valueBefore("state", "added", ["SCH"])).toBe("withdrawn");
    expect(valueBefore("flight", "added", undefined)).toBe("removed");
    expect(valueBefore("flight", "removed", undefined)).toBe("added");
    expect(valueBefore("gate", "changed", "D1")).toBe("D1");
  });

  it("values compare deeply; times as instants; unknown only equals unknown", () => {
    const a = { rows: ["1"], desks: [1, 2], opens: 5 };
    const b = { opens: 5, desks: [1, 2], rows: ["1"] };
    expect(sameValue("checkin", a, b)).toBe(true);
    expect(sameValue("checkin", a, { ...b, desks: [1] })).toBe(false);
    expect(sameValue("belt", ["1", "2"], ["1", "2"])).toBe(true);
    expect(sameValue("terminal", 1, "1")).toBe(false);
    expect(sameValue("time", "2026-11-21T11:00:00.000+01:00", "2026-11-21T10:00:00.000Z")).toBe(
      true,
    );
    expect(sameValue("time", "2026-11-21T11:00:00.000+01:00", "2026-11-21T11:00:00.000Z")).toBe(
      false,
    );
    expect(sameValue("gate", undefined, "D1")).toBe(false);
    expect(sameValue("gate", undefined, undefined)).toBe(true);
  });

  it("a flight added and removed within the group sends nothing", () => {
    const d = new Driver(rule({ groupWaitMs: MINUTE }));
    d.admit(0, [event({ kind: "flight", field: "flight", action: "added" }, 1)]);
    d.admit(1, [event({ kind: "flight", field: "flight", action: "removed" }, 2)]);
    expect(d.flush(MINUTE)).toEqual([]);
    d.admit(2 * MINUTE, [event({ kind: "flight", field: "flight", action: "removed" }, 3)]);
    expect(d.flush(3 * MINUTE)[0]?.changes[0]).toMatchObject({ kind: "flight", action: "removed" });
  });
});
