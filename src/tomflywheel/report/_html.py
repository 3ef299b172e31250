r"""Self-contained HTML pieces: page shell, SVG bar charts, and a per-sample browser.

Nothing is fetched at view time. Every dataset text is escaped: in markup with ``html.escape``;
in the embedded JSON, ``<``, ``>`` and ``&`` become ``\u003c``-style escapes and the page script
writes it with ``textContent`` only, so a story cannot inject markup or script.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d2330;
background:#fafbfc}h1{font-size:1.5em}
h2{margin-top:2em;border-bottom:1px solid #dde;padding-bottom:4px}
.meta{color:#556;font-size:.9em}.grid{display:flex;flex-wrap:wrap;gap:18px}
.card{background:#fff;border:1px solid #e3e6ee;border-radius:8px;padding:12px 16px}
table{border-collapse:collapse;font-size:.9em}td,th{border-bottom:1px solid #eee;padding:4px 8px;
text-align:left;vertical-align:top}th{background:#f2f4f8}.correct{color:#1a7f37;font-weight:600}
.incorrect{color:#b42318;font-weight:600}.unjudged,.error,.ambiguous{color:#9a6700;font-weight:600}
.warn{background:#fff4e5;border-left:4px solid #e8a33d;padding:6px 10px;max-width:900px}
pre{white-space:pre-wrap;background:#f6f8fa;padding:8px;border-radius:6px;max-width:900px}
#browser-controls{display:flex;gap:12px;margin:8px 0}#sample-list tr{cursor:pointer}
#sample-list tr:hover{background:#eef3ff}.note{color:#667;font-size:.85em}
"""

SCRIPT = """
const data = JSON.parse(document.getElementById('samples-data').textContent);
const dsSel = document.getElementById('ds'), vSel = document.getElementById('verdict');
const q = document.getElementById('q'), list = document.getElementById('sample-list');
const detail = document.getElementById('detail');
Object.keys(data).forEach(k => { const o = document.createElement('option'); o.value = k;
  o.textContent = k; dsSel.appendChild(o); });
function cell(tr, text, cls) { const td = document.createElement('td'); td.textContent = text;
  if (cls) td.className = cls; tr.appendChild(td); }
function block(title, text) { const h = document.createElement('h4'); h.textContent = title;
  const p = document.createElement('pre'); p.textContent = text; detail.appendChild(h);
  detail.appendChild(p); }
function show(s) { detail.replaceChildren(); block('Story', s.story); block('Question', s.question);
  if (s.options) block('Options (as shown)', s.options.map((o, i) =>
    String.fromCharCode(65 + i) + '. ' + o).join('\\n'));
  block('Gold', s.gold.join(' | ')); block('Model output', s.output);
  block('Verdict', s.verdict + (s.match ? ' (' + s.match + ')' : '') +
    (s.reason ? ' — ' + s.reason : '') + (s.failure ? ' — judge failure: ' + s.failure : ''));
  if (s.judge) block('LLM judge', s.judge);
  if (s.details) block('Details', s.details); }
function render() { list.replaceChildren(); const rows = data[dsSel.value] || [];
  const needle = q.value.toLowerCase(); let shown = 0;
  rows.forEach(s => { if (vSel.value && s.verdict !== vSel.value) return;
    const hay = (s.id + ' ' + s.question + ' ' + s.output).toLowerCase();
    if (needle && !hay.includes(needle)) return;
    if (shown++ > 500) return; const tr = document.createElement('tr');
    cell(tr, s.id); cell(tr, s.question); cell(tr, s.output); cell(tr, s.verdict, s.verdict);
    tr.onclick = () => show(s); list.appendChild(tr); }); }
[dsSel, vSel].forEach(e => e.onchange = render); q.oninput = render; render();
"""


def esc(text: object) -> str:
    """HTML-escape any value for text or attribute context."""
    return html.escape(str(text), quote=True)


def embed_json(value: Any) -> str:
    """JSON safe to place inside ``<script type="application/json">``."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@dataclass(frozen=True)
class Bar:
    """One bar: a label, a value in [0, 1] (or ``None``) and its 95% interval."""

    label: str
    value: float | None
    ci: tuple[float, float] | None = None
    series: str = ""
    chance: float | None = None
    """Accuracy of a random pick among the options or candidates (drawn as a dashed mark)."""


def bar_chart(bars: Sequence[Bar], *, title: str, width: int = 560) -> str:
    """A horizontal bar chart (accuracy 0-100%) with interval whiskers, as inline SVG."""
    label_w, row_h, plot_w = 220, 22, width - 220 - 60
    series = sorted({b.series for b in bars})
    palette = ["#3b6fd8", "#e07b39", "#3aa07a", "#9b59b6", "#c0392b", "#7f8c8d"]
    height = row_h * len(bars) + 40
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{esc(title)}"><title>{esc(title)}</title>'
    ]
    for tick in (0, 25, 50, 75, 100):
        x = label_w + plot_w * tick / 100
        parts.append(
            f'<line x1="{x:.1f}" y1="18" x2="{x:.1f}" y2="{height - 18}" stroke="#e5e7eb"/>'
        )
        parts.append(f'<text x="{x:.1f}" y="12" font-size="10" text-anchor="middle">{tick}%</text>')
    for i, bar in enumerate(bars):
        y = 20 + i * row_h
        colour = palette[series.index(bar.series) % len(palette)]
        label = f"{bar.series}: {bar.label}" if bar.series else bar.label
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 14}" font-size="11" text-anchor="end">'
            f"{esc(label[:40])}</text>"
        )
        if bar.value is None:
            parts.append(f'<text x="{label_w + 4}" y="{y + 14}" font-size="11">n/a</text>')
            continue
        w = plot_w * bar.value
        parts.append(
            f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row_h - 8}" '
            f'fill="{colour}"><title>{esc(label)}: {100 * bar.value:.1f}%</title></rect>'
        )
        end = label_w + w
        if bar.ci:
            lo, hi = (label_w + plot_w * v for v in bar.ci)
            mid = y + row_h / 2 - 1
            parts.append(f'<line x1="{lo:.1f}" y1="{mid}" x2="{hi:.1f}" y2="{mid}" stroke="#111"/>')
            end = max(end, hi)  # the value label goes past the whisker, never over it
        if bar.chance is not None:
            cx = label_w + plot_w * bar.chance
            parts.append(
                f'<line class="chance" x1="{cx:.1f}" y1="{y + 1}" x2="{cx:.1f}" '
                f'y2="{y + row_h - 3}" stroke="#c0392b" stroke-width="2" stroke-dasharray="3,2">'
                f"<title>chance {100 * bar.chance:.1f}%</title></line>"
            )
        parts.append(
            f'<text x="{end + 4:.1f}" y="{y + 14}" font-size="10">{100 * bar.value:.1f}</text>'
        )
    parts.append("</svg>")
    if any(bar.chance is not None for bar in bars):
        parts.append(CHANCE_LEGEND)
    return "".join(parts)


CHANCE_LEGEND = (
    '<p class="note legend"><svg width="14" height="12" aria-hidden="true">'
    '<line x1="7" y1="0" x2="7" y2="12" stroke="#c0392b" stroke-width="2" '
    'stroke-dasharray="3,2"/></svg> chance level: the accuracy of a random pick among each '
    "item's options or named candidates (a bar near it is no result); black whisker: 95% "
    "interval.</p>"
)
"""The key to the dashed chance marks, below every chart that has one."""


class Html(str):
    """Markup built here from escaped parts: a table cell that is not escaped again."""

    __slots__ = ()


def folded(text: object, *, limit: int = 160) -> str:
    """A long text folded to its first ``limit`` characters; the rest opens on a click.

    Evidence that lists every belief chain of a story made one table row thousands of pixels
    tall; folded, the table stays readable and nothing is lost.
    """
    value = str(text)
    if len(value) <= limit:
        return value
    return Html(
        f"<details><summary>{esc(value[:limit].rstrip())} …</summary>{esc(value)}</details>"
    )


def table_html(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """An HTML table whose cells are escaped (an :class:`Html` cell is kept as built)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{c if isinstance(c, Html) else esc(c)}</td>" for c in row) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def sample_browser(
    samples_by_dataset: dict[str, list[dict[str, Any]]],
    *,
    verdicts: Sequence[str] = ("correct", "incorrect", "ambiguous", "unjudged", "error"),
    columns: tuple[str, str, str, str] = ("id", "question", "output", "verdict"),
) -> str:
    """The per-sample browser: dataset and verdict filters, search, and a detail pane.

    Each row has ``id``, ``story``, ``question``, ``options``, ``gold``, ``output``,
    ``verdict`` and optionally ``match``, ``reason``, ``failure`` and ``details``.
    ``columns`` names the list's four columns for what they hold (``id``, ``question``,
    ``output``, ``verdict`` of each row).
    """
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    options = "".join(
        f'<option value="{esc(v)}">{esc(v) or "all"}</option>' for v in ("", *verdicts)
    )
    return (
        '<div id="browser-controls"><select id="ds"></select>'
        f'<select id="verdict">{options}</select>'
        '<input id="q" placeholder="search id, question, output"></div>'
        '<div class="grid"><div class="card" style="max-height:520px;overflow:auto">'
        f"<table><thead><tr>{head}</tr>"
        '</thead><tbody id="sample-list"></tbody></table></div>'
        '<div class="card" id="detail"><p class="note">Click a row to see the sample.</p></div>'
        "</div>"
        '<script type="application/json" id="samples-data">'
        f"{embed_json(samples_by_dataset)}</script>"
        f"<script>{SCRIPT}</script>"
    )


def page(title: str, body: str) -> str:
    """A whole self-contained HTML page."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>{body}</body></html>\n"
    )
