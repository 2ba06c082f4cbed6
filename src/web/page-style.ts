/**
 * The one stylesheet of the passenger pages (`/passenger/style.css`): a single column
 * that fits a phone, system fonts, text and controls at WCAG AA contrast or better, a
 * focus ring that cannot be missed, and no script. Colours follow the system's dark mode.
 */
export const PAGE_STYLE = `
:root {
  --ink: #1b1f24;
  --muted: #4a5460;
  --paper: #ffffff;
  --band: #0b3d6b;
  --band-ink: #ffffff;
  --accent: #0b57d0;
  --accent-ink: #ffffff;
  --line: #8a96a3;
  --soft: #f1f4f8;
  --error: #b3261e;
  --focus: #ffbf47;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --ink: #e8ecf1;
    --muted: #b6c0cb;
    --paper: #12161b;
    --band: #0e2a47;
    --accent: #8ab4f8;
    --accent-ink: #0b1a2e;
    --line: #7d8894;
    --soft: #1d232b;
    --error: #ffb4ab;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0;
  background: var(--paper);
  color: var(--ink);
  font: 1.0625rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
}
.top {
  background: var(--band);
  color: var(--band-ink);
}
.top-inner, main, .foot {
  max-width: 36rem;
  margin: 0 auto;
  padding: 0 1.25rem;
}
.top-inner {
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 1rem;
  min-height: 3.5rem;
}
.brand {
  color: var(--band-ink);
  font-weight: 700;
  font-size: 1.15rem;
  text-decoration: none;
  letter-spacing: 0.01em;
}
.brand::before { content: "\\2708\\FE0E\\00a0"; }
.top nav a { color: var(--band-ink); }
main { padding-top: 1.5rem; padding-bottom: 2rem; }
h1 { font-size: 1.75rem; line-height: 1.2; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 0.5rem; }
p { margin: 0 0 1rem; }
a { color: var(--accent); text-underline-offset: 0.15em; }
.lead { font-size: 1.125rem; }
.muted { color: var(--muted); }
.after { margin-top: 1.25rem; }
.field { margin: 0 0 1.5rem; }
label { display: block; font-weight: 700; margin-bottom: 0.15rem; }
.hint { display: block; color: var(--muted); margin-bottom: 0.4rem; font-size: 0.95rem; }
input, select {
  display: block;
  width: 100%;
  max-width: 22rem;
  font: inherit;
  padding: 0.6rem 0.7rem;
  border: 2px solid var(--line);
  border-radius: 0.35rem;
  background: var(--paper);
  color: var(--ink);
  min-height: 2.9rem;
}
input[aria-invalid="true"] { border-color: var(--error); border-width: 3px; }
.error-text { display: block; color: var(--error); font-weight: 700; margin-bottom: 0.4rem; }
.field-error { border-left: 4px solid var(--error); padding-left: 0.9rem; }
button, .button {
  display: inline-block;
  font: inherit;
  font-weight: 700;
  color: var(--accent-ink);
  background: var(--accent);
  border: 2px solid transparent;
  border-radius: 0.35rem;
  padding: 0.7rem 1.3rem;
  min-height: 2.9rem;
  cursor: pointer;
  text-decoration: none;
}
button:hover { filter: brightness(0.92); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible {
  outline: 3px solid var(--focus);
  outline-offset: 2px;
  box-shadow: 0 0 0 6px var(--ink);
}
.summary {
  border: 3px solid var(--error);
  border-radius: 0.35rem;
  padding: 0.9rem 1.1rem;
  margin: 0 0 1.5rem;
}
.summary h2 { margin-top: 0; color: var(--error); }
.summary ul { margin: 0; padding-left: 1.2rem; }
.summary a { color: var(--error); font-weight: 700; }
.panel {
  background: var(--soft);
  border-radius: 0.5rem;
  padding: 1rem 1.1rem;
  margin: 0 0 1.25rem;
}
.facts { margin: 0 0 1.25rem; display: grid; grid-template-columns: max-content 1fr; gap: 0.4rem 1.25rem; }
.facts dt { font-weight: 700; }
.facts dd { margin: 0; }
.links { list-style: none; padding: 0; margin: 1.25rem 0 0; }
.links li { margin: 0 0 0.6rem; }
.foot { border-top: 1px solid var(--line); padding-top: 1rem; padding-bottom: 2rem; color: var(--muted); font-size: 0.95rem; }
@media (max-width: 26rem) {
  h1 { font-size: 1.5rem; }
  button { width: 100%; }
  .facts { grid-template-columns: 1fr; gap: 0 0; }
  .facts dd { margin-bottom: 0.6rem; }
}
`;
