/**
 * A single self-contained HTML page: styles inline, no scripts and no external resources, so it
 * reads the same offline, from an archive or as an e-mail attachment.
 */
import { ReportSnapshot, SEVERITIES } from '../domain/snapshot';
import { chartSvg } from './charts';
import { IDENTIFIER } from './wrap';
import { buildReportView, SEVERITY_COLORS, severityOfLabel } from './report-view';
import type { ReportEntry, ReportField, ReportTable } from './view-model';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Every text from the snapshot goes through here: titles and paths come from scanned code. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);
}

/** Escaped cell text whose CVE and CWE ids a browser may not break at their hyphens. */
function cellHtml(text: string): string {
  return escapeHtml(text).replace(IDENTIFIER, (id) => `<span class="id">${id}</span>`);
}

const STYLE = `
  body { font: 14px/1.45 -apple-system, "Segoe UI", "Noto Sans", "DejaVu Sans", Helvetica, Arial, "Noto Sans CJK SC", "Microsoft YaHei", "PingFang SC", "Noto Sans Arabic", sans-serif; color: #111827; margin: 2rem auto; max-width: 80rem; padding: 0 1.5rem; }
  h1 { font-size: 1.6rem; margin: 0 0 .75rem; }
  h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; }
  dl.details { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
  dl.details dt { font-weight: 600; color: #4b5563; }
  dl.details dd { margin: 0; }
  .totals { display: flex; gap: 1rem; margin: 1.5rem 0; }
  .total { border: 1px solid #d1d5db; border-radius: 6px; padding: .6rem 1.2rem; }
  .total .value { display: block; font-size: 1.6rem; font-weight: 700; }
  .total .label { color: #4b5563; }
  table { border-collapse: collapse; min-width: 24rem; }
  th, td { border-bottom: 1px solid #e5e7eb; padding: .35rem .6rem; text-align: left; vertical-align: top; }
  th { background: #f3f4f6; font-weight: 600; }
  td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
  /* Wrap at spaces and separators first; break inside a word only when nothing else fits. */
  td { overflow-wrap: break-word; word-break: normal; }
  .charts { display: flex; flex-wrap: wrap; gap: 1rem; margin: 1rem 0; }
  .charts svg { max-width: 100%; height: auto; }
  article.issue { border-top: 1px solid #e5e7eb; margin-top: 1.25rem; }
  article.issue p { white-space: pre-wrap; overflow-wrap: break-word; }
  td.severity { font-weight: 600; }
  span.id { white-space: nowrap; }
${SEVERITIES.map((severity) => `  td.${severity} { color: ${SEVERITY_COLORS[severity]}; }`).join('\n')}
  p.empty, p.note { color: #4b5563; margin: .5rem 0; }
  @media print { body { margin: 0; max-width: none; } h2 { break-after: avoid; } tr { break-inside: avoid; } }
`;

function renderField(field: ReportField): string {
  return `<dt>${escapeHtml(field.label)}</dt><dd dir="auto">${escapeHtml(field.value)}</dd>`;
}

function renderTotal(field: ReportField): string {
  return `<div class="total"><span class="value">${escapeHtml(field.value)}</span><span class="label">${escapeHtml(field.label)}</span></div>`;
}

function renderTable(table: ReportTable): string {
  const headerCells = table.columns
    .map(
      (column) =>
        `<th scope="col"${column.align === 'right' ? ' class="number"' : ''}>${escapeHtml(column.label)}</th>`,
    )
    .join('');
  const rows = table.rows.map((row) => {
    const cells = row.map((text, index) => {
      const column = table.columns[index];
      const severity = column.severity ? severityOfLabel(text) : undefined;
      if (severity) return `<td class="severity ${severity}">${escapeHtml(text)}</td>`;
      return `<td${column.align === 'right' ? ' class="number"' : ''}${/[\u0590-\u08ff]/.test(text) ? ' dir="auto"' : ''}>${cellHtml(text)}</td>`;
    });
    return `<tr>${cells.join('')}</tr>`;
  });
  const body =
    table.rows.length === 0
      ? `<p class="empty">${escapeHtml(table.emptyText)}</p>`
      : `<table>\n<thead><tr>${headerCells}</tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`;
  const note = table.note === null ? '' : `\n<p class="note">${escapeHtml(table.note)}</p>`;
  return `<section>\n<h2>${escapeHtml(table.title)}</h2>\n${body}${note}\n</section>`;
}

function renderEntry(entry: ReportEntry): string {
  const paragraphs = entry.paragraphs
    .map((p) => `<h4>${escapeHtml(p.label)}</h4>\n<p dir="auto">${escapeHtml(p.value)}</p>`)
    .join('\n');
  const history = entry.history ? renderTable(entry.history) : '';
  return `<article class="issue">\n<h3 dir="auto">${escapeHtml(entry.title)}</h3>\n<dl class="details">${entry.fields.map(renderField).join('')}</dl>\n${paragraphs}\n${history}\n</article>`;
}

export function renderHtml(snapshot: ReportSnapshot): Buffer {
  const view = buildReportView(snapshot);
  // The policy keeps a browser from running or fetching anything, should escaping ever miss a spot.
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(view.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1 dir="auto">${escapeHtml(view.title)}</h1>
<dl class="details">${view.details.map(renderField).join('')}</dl>
</header>
<div class="totals">${view.totals.map(renderTotal).join('')}</div>
<div class="charts">${view.charts.map((chart) => chartSvg(chart, 480, 280)).join('\n')}</div>
${view.tables.map(renderTable).join('\n')}
${view.entries.length > 0 ? `<section>\n<h2>Open issues in detail</h2>\n${view.entries.map(renderEntry).join('\n')}\n</section>` : ''}
</body>
</html>
`;
  return Buffer.from(html, 'utf8');
}
