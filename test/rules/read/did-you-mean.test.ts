import { describe, expect, it } from "vitest";
import { KIND_NAMES, STATE_CODES } from "../../../src/rules/change-kinds.js";
import { didYouMean, editDistance, suggestionHint } from "../../../src/rules/read/did-you-mean.js";
import { RULE_KEYS } from "../../../src/rules/read/rule-schema.js";

describe("editDistance", () => {
  it.each([
    ["", "", 0],
    ["abc", "", 3],
    ["", "abc", 3],
    ["gate", "gate", 0],
    ["gat", "gate", 1],
    ["grup_wait", "group_wait", 1],
    ["gaet", "gate", 1], // a swap of neighbours is one edit
    ["kitten", "sitting", 3],
  ])("%s → %s is %d", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe("didYouMean", () => {
  it("suggests the close candidate", () => {
    expect(didYouMean("grup_wait", RULE_KEYS)).toBe("group_wait");
    expect(didYouMean("gat", KIND_NAMES)).toBe("gate");
    expect(didYouMean("CNL", STATE_CODES)).toBe("CNX");
    expect(didYouMean("chanels", RULE_KEYS)).toBe("channels");
    expect(didYouMean("cancled", KIND_NAMES)).toBe("cancelled");
  });

  it("ignores case", () => {
    expect(didYouMean("Gate", KIND_NAMES)).toBe("gate");
    expect(didYouMean("brd", STATE_CODES)).toBe("BRD");
  });

  it("stays quiet when nothing is close", () => {
    expect(didYouMean("colour", RULE_KEYS)).toBeUndefined();
    expect(didYouMean("x", ["id"])).toBeUndefined();
    expect(didYouMean("XYZ", STATE_CODES)).toBeUndefined();
    expect(didYouMean("anything", [])).toBeUndefined();
  });

  it("takes the closest, the earlier on a tie", () => {
    expect(didYouMean("pier", ["piers", "pier"])).toBe("pier");
    expect(didYouMean("ab", ["ax", "ay"])).toBe("ax");
  });
});

describe("suggestionHint", () => {
  it("suggests, or lists the valid names", () => {
    expect(suggestionHint("gat", ["gate", "pier"])).toBe("did you mean `gate`?");
    expect(suggestionHint("zzz", ["gate", "pier"])).toBe("expected one of `gate`, `pier`");
  });
});
