/**
 * The HTTP `Link` header (RFC 8288), as the upstream uses it for paging. Pure: no
 * I/O and no policy. Whether a link may be followed (same origin, no loop) is the
 * paged walk's decision, not the parser's.
 */

/** One link of a `Link` header. */
export interface Link {
  /** The target exactly as written between `<` and `>` (surrounding blanks dropped). */
  target: string;
  /**
   * The target resolved against the request URL, percent-encoding kept as given;
   * undefined when the target is not a usable URL.
   */
  href: string | undefined;
  /** Relation types, lower-cased; `rel="next last"` gives two. */
  rels: string[];
  /** Other parameters: names lower-cased, values unquoted; the first occurrence wins. */
  params: Record<string, string>;
}

const isBlank = (c: string | undefined): boolean =>
  c === " " || c === "\t" || c === "\r" || c === "\n";

/**
 * Parses one or more `Link` header values (repeated headers may be passed as an
 * array) into links, resolving relative targets against `requestUrl`. Garbage
 * between links is skipped rather than thrown on: a broken `first` link must not
 * cost the caller a readable `next` link.
 */
export function parseLinkHeader(
  header: string | readonly string[] | undefined,
  requestUrl: string | URL,
): Link[] {
  if (header === undefined) return [];
  const text = typeof header === "string" ? header : header.join(", ");
  const links: Link[] = [];
  let i = 0;
  const skipBlanks = (): void => {
    while (isBlank(text[i])) i++;
  };

  while (i < text.length) {
    while (i < text.length && (isBlank(text[i]) || text[i] === ",")) i++;
    if (i >= text.length) break;
    if (text[i] !== "<") {
      i = skipToNextLink(text, i);
      continue;
    }
    // A URL cannot hold a raw `>`, but it may hold commas and semicolons.
    const close = text.indexOf(">", i + 1);
    if (close < 0) break;
    const target = text.slice(i + 1, close).trim();
    i = close + 1;

    const params: Record<string, string> = {};
    for (;;) {
      skipBlanks();
      const c = text[i];
      if (c === undefined || c === ",") break;
      if (c !== ";") {
        i++; // stray character after the target: tolerate it
        continue;
      }
      i++;
      skipBlanks();
      const nameStart = i;
      while (i < text.length && !"=;,".includes(text[i] ?? "") && !isBlank(text[i])) i++;
      const name = text.slice(nameStart, i).toLowerCase();
      skipBlanks();
      let value = "";
      if (text[i] === "=") {
        i++;
        skipBlanks();
        if (text[i] === '"') {
          const quoted = readQuoted(text, i);
          value = quoted.value;
          i = quoted.end;
        } else {
          const valueStart = i;
          while (i < text.length && !";,".includes(text[i] ?? "") && !isBlank(text[i])) i++;
          value = text.slice(valueStart, i);
        }
      }
      if (name !== "" && !(name in params)) params[name] = value;
    }

    const { rel, ...rest } = params;
    links.push({
      target,
      href: resolve(target, requestUrl),
      rels: (rel ?? "")
        .toLowerCase()
        .split(/[ \t]+/)
        .filter((r) => r !== ""),
      params: rest,
    });
  }
  return links;
}

/** The first link carrying relation type `rel` (case-insensitive), if any. */
export function findLink(links: readonly Link[], rel: string): Link | undefined {
  const wanted = rel.toLowerCase();
  return links.find((link) => link.rels.includes(wanted));
}

/** Reads a quoted-string starting at the opening quote; backslash escapes one character. */
function readQuoted(text: string, start: number): { value: string; end: number } {
  let value = "";
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\" && i + 1 < text.length) {
      value += text[i + 1];
      i += 2;
    } else if (c === '"') {
      return { value, end: i + 1 };
    } else {
      value += c;
      i++;
    }
  }
  return { value, end: i };
}

/** Index just past the next comma outside a quoted string (or the end of the text). */
function skipToNextLink(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === ",") return i + 1;
    if (c === '"') i = readQuoted(text, i).end;
    else i++;
  }
  return i;
}

function resolve(target: string, base: string | URL): string | undefined {
  // An absolute target needs no base, so a bad base must not cost it.
  const absolute = URL.canParse(target) ? new URL(target) : undefined;
  if (absolute) return absolute.href;
  return URL.canParse(target, String(base)) ? new URL(target, base).href : undefined;
}
