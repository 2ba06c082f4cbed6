// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} in plain strings is the syntax under test
import { describe, expect, it } from "vitest";
import { substituteEnv } from "../../src/rules/env-substitution.js";

const env = { HOST: "example.com", EMPTY: "", PORT: "8080" };

describe("substituteEnv", () => {
  it.each([
    ["plain text", "plain text"],
    ["https://${HOST}/x", "https://example.com/x"],
    ["${HOST}:${PORT}", "example.com:8080"],
    ["${MISSING:-fallback}", "fallback"],
    ["${EMPTY:-fallback}", "fallback"],
    ["${HOST:-fallback}", "example.com"],
    ["${MISSING:-}", ""],
    ["${MISSING:-a b:c}", "a b:c"],
    ["$$", "$"],
    ["$${HOST}", "${HOST}"],
    ["costs $5", "costs $5"],
    ["end $", "end $"],
    ["$HOST", "$HOST"],
  ])("%s → %s", (text, value) => {
    expect(substituteEnv(text, env)).toEqual({ ok: true, value });
  });

  it("names a variable that is not set, with the hint of docs/rules.md", () => {
    expect(substituteEnv("${ANNA_EMAIL}", env)).toEqual({
      ok: false,
      problems: [
        {
          message: "environment variable `ANNA_EMAIL` is not set",
          hint: "set it, or write ${ANNA_EMAIL:-default}",
        },
      ],
    });
  });

  it("says when a variable is empty", () => {
    const result = substituteEnv("${EMPTY}", env);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.problems[0]?.message).toBe("environment variable `EMPTY` is empty");
  });

  it("reports every missing variable of a value", () => {
    const result = substituteEnv("${A}/${B}", env);
    expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([
      "environment variable `A` is not set",
      "environment variable `B` is not set",
    ]);
  });

  it.each([["${HOST"], ["${}"], ["${1A}"], ["${HO ST}"], ["${HOST:default}"], ["${HOST-x}"]])(
    "refuses the malformed %s",
    (text) => {
      const result = substituteEnv(text, env);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problems[0]?.hint).toContain("${NAME:-default}");
    },
  );
});
