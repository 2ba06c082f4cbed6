/**
 * The passenger pages as HTML: pure functions of what a page shows. Every page has a
 * `lang`, one `h1`, a language switch, and works without script; forms post to the page
 * itself with relative URLs, so the pages work behind a reverse proxy at any path.
 * Problems of a form are listed first (each a link to its field) and repeated at the
 * field, which points to its message with `aria-describedby` (the GOV.UK pattern).
 */
import { escapeHtml } from "../deliver/email-message.js";
import { LANGUAGES, type Language } from "../render/language.js";
import { wordsOf } from "./page-words.js";

/** The fields of the subscribe form, in the order they are shown. */
export const FORM_FIELDS = ["flight", "date", "email", "language"] as const;
export type FormField = (typeof FORM_FIELDS)[number];

/** What the subscribe form holds (as typed). */
export type FormValues = Partial<Record<FormField, string>>;
/** Problems of the subscribe form, by field. */
export type FormErrors = Partial<Record<FormField, string>>;

/** One page: its language, title, body, and the query of the same page in each language. */
export interface PageFrame {
  language: Language;
  title: string;
  /** The inside of `<main>`, after the `h1`. */
  body: string;
  /** The query string of this page in another language (`?t=…&lang=nl`). */
  queryFor: (language: Language) => string;
  /** Heading other than the title (the title says it too, with the site's name). */
  heading?: string;
}

const e = escapeHtml;

/** A whole page. */
export function pageHtml(frame: PageFrame): string {
  const w = wordsOf(frame.language);
  const others = LANGUAGES.filter((l) => l !== frame.language)
    .map(
      (l) =>
        `<a href="${e(frame.queryFor(l))}" lang="${l}" hreflang="${l}">${e(wordsOf(l).name)}</a>`,
    )
    .join(" ");
  return `<!DOCTYPE html>
<html lang="${frame.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${e(frame.title)} · ${e(w.site)}</title>
<link rel="stylesheet" href="style.css">
</head>
<body>
<header class="top"><div class="top-inner">
<a class="brand" href="subscribe?lang=${frame.language}">${e(w.site)}</a>
<nav aria-label="${e(w.languageNav)}">${others}</nav>
</div></header>
<main id="main">
<h1>${e(frame.heading ?? frame.title)}</h1>
${frame.body}
</main>
<footer class="foot"><p>${e(w.footer)}</p></footer>
</body>
</html>
`;
}

/** Paragraphs of plain text. */
export function paragraphs(...texts: string[]): string {
  return texts.map((t) => `<p>${e(t)}</p>`).join("\n");
}

/** A list of links (`href` relative to the page). */
export function links(items: readonly { href: string; text: string }[]): string {
  if (items.length === 0) return "";
  return `<ul class="links">${items.map((i) => `<li><a href="${e(i.href)}">${e(i.text)}</a></li>`).join("")}</ul>`;
}

/** A form of one button that posts `fields` to `action` (confirm, unsubscribe). */
export function buttonForm(
  action: string,
  fields: Readonly<Record<string, string>>,
  button: string,
): string {
  const hidden = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${e(name)}" value="${e(value)}">`)
    .join("\n");
  return `<form method="post" action="${e(action)}">
${hidden}
<button type="submit">${e(button)}</button>
</form>`;
}

/** Facts as a description list (`label: value`). */
export function facts(rows: readonly { label: string; value: string }[]): string {
  if (rows.length === 0) return "";
  return `<dl class="facts">${rows.map((r) => `<dt>${e(r.label)}</dt><dd>${e(r.value)}</dd>`).join("")}</dl>`;
}

/** A flight's facts in a box: its headline, the facts, a closing note. */
export function panel(
  headline: string,
  rows: readonly { label: string; value: string }[],
  note: string,
): string {
  return `<div class="panel"><p><strong>${e(headline)}</strong></p>${facts(rows)}<p class="muted">${e(note)}</p></div>`;
}

/** The subscribe form, with what was typed and its problems. */
export function subscribeFormHtml(
  language: Language,
  values: FormValues,
  errors: FormErrors,
  dates: { min: string; max: string },
): string {
  const w = wordsOf(language);
  const wrong = FORM_FIELDS.filter((f) => errors[f] !== undefined);
  const summary =
    wrong.length === 0
      ? ""
      : `<div class="summary" role="alert" aria-labelledby="problems" tabindex="-1">
<h2 id="problems">${e(w.problemTitle)}</h2>
<ul>${wrong.map((f) => `<li><a href="#${f}">${e(errors[f] as string)}</a></li>`).join("")}</ul>
</div>`;
  const notifications = values.language ?? language;
  const options = LANGUAGES.map(
    (l) =>
      `<option value="${l}"${l === notifications ? " selected" : ""}>${e(wordsOf(l).name)}</option>`,
  ).join("");
  return `${summary}
<p class="lead">${e(w.subscribeIntro)}</p>
<form method="post" action="subscribe" novalidate>
<input type="hidden" name="lang" value="${language}">
${field("flight", w.flightLabel, w.flightHint, errors.flight, `<input id="flight" name="flight" type="text" value="${e(values.flight ?? "")}" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="20" required${described("flight", errors.flight)}>`)}
${field("date", w.dateLabel, w.dateHint, errors.date, `<input id="date" name="date" type="date" value="${e(values.date ?? "")}" min="${dates.min}" max="${dates.max}" required${described("date", errors.date)}>`)}
${field("email", w.emailLabel, w.emailHint, errors.email, `<input id="email" name="email" type="email" value="${e(values.email ?? "")}" autocomplete="email" spellcheck="false" maxlength="254" required${described("email", errors.email)}>`)}
${field("language", w.languageLabel, undefined, errors.language, `<select id="language" name="language"${described("language", errors.language)}>${options}</select>`)}
<button type="submit">${e(w.subscribeButton)}</button>
</form>`;
}

/** One labelled field: label, hint, its problem, the control. */
function field(
  name: FormField,
  label: string,
  hint: string | undefined,
  error: string | undefined,
  control: string,
): string {
  return `<div class="field${error === undefined ? "" : " field-error"}">
<label for="${name}">${e(label)}</label>
${hint === undefined ? "" : `<span class="hint" id="${name}-hint">${e(hint)}</span>`}
${error === undefined ? "" : `<span class="error-text" id="${name}-error">${e(error)}</span>`}
${control}
</div>`;
}

/** `aria-describedby` (hint and error) and `aria-invalid` of a control. */
function described(name: FormField, error: string | undefined): string {
  const ids = [
    ...(name === "language" ? [] : [`${name}-hint`]),
    ...(error ? [`${name}-error`] : []),
  ];
  const by = ids.length > 0 ? ` aria-describedby="${ids.join(" ")}"` : "";
  return `${by}${error ? ' aria-invalid="true"' : ""}`;
}
