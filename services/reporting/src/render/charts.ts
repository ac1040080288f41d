/**
 * Charts as SVG, drawn by Apache ECharts' server-side renderer (no DOM, no browser): HTML embeds
 * the SVG, the PDF draws it as vectors, DOCX embeds it with a PNG rendered by resvg for Word
 * versions that show no SVG.
 */
import * as echarts from 'echarts';
import { Resvg } from '@resvg/resvg-js';
import { trueTypeFontPaths } from './fonts';
import type { ReportChart } from './view-model';

/** The family named in the SVG; the PDF maps it to its embedded font and resvg to DejaVu Sans. */
export const CHART_FONT = 'DejaVu Sans';

function option(chart: ReportChart): echarts.EChartsCoreOption {
  const text = { fontFamily: CHART_FONT, fontSize: 11, color: '#111827' };
  const title = { text: chart.title, left: 0, textStyle: { ...text, fontSize: 13, fontWeight: 'bold' as const } };
  if (chart.kind === 'pie') {
    const series = chart.series[0];
    // The counts go into the legend: labels around the ring would be cut at the chart's edge.
    return {
      animation: false,
      textStyle: text,
      title,
      legend: { orient: 'vertical', left: '55%', top: 'middle', itemWidth: 12, textStyle: text },
      series: [
        {
          type: 'pie',
          radius: ['30%', '55%'],
          center: ['30%', '56%'],
          label: { show: false },
          data: chart.categories.map((name, i) => ({
            name: `${name}: ${series.values[i]}`,
            value: series.values[i],
            itemStyle: series.colors ? { color: series.colors[i] } : undefined,
          })),
        },
      ],
    };
  }
  const horizontal = chart.kind === 'hbar';
  const categoryAxis = {
    type: 'category' as const,
    data: chart.categories,
    axisLabel: { ...text, width: 100, overflow: 'truncate' as const },
  };
  const valueAxis = { type: 'value' as const, minInterval: 1, axisLabel: text };
  return {
    animation: false,
    textStyle: text,
    title,
    // Under the plot: at the top it would run into the title in a narrow chart.
    legend: chart.series.length > 1 ? { bottom: 0, left: 'center', itemWidth: 14, textStyle: text } : undefined,
    grid: { left: 10, right: 20, top: 40, bottom: chart.series.length > 1 ? 30 : 10, containLabel: true },
    xAxis: horizontal ? valueAxis : categoryAxis,
    yAxis: horizontal ? { ...categoryAxis, inverse: true } : valueAxis,
    series: chart.series.map((s) => ({
      name: s.name,
      type: chart.kind === 'line' ? 'line' : 'bar',
      data: s.values.map((value, i) => ({ value, itemStyle: s.colors ? { color: s.colors[i] } : undefined })),
      barMaxWidth: 18,
      itemStyle: s.color ? { color: s.color } : undefined,
      lineStyle: s.color ? { color: s.color } : undefined,
      showSymbol: chart.kind === 'line' && s.values.length < 40,
    })),
  };
}

export function chartSvg(chart: ReportChart, width: number, height: number): string {
  const instance = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    instance.setOption(option(chart));
    return instance.renderToSVGString();
  } finally {
    instance.dispose();
  }
}

/** A PNG of the SVG at `scale` times its size, its text in DejaVu Sans from the npm package. */
export function chartPng(svg: string, scale: number): Buffer {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: scale },
    background: '#ffffff',
    font: { loadSystemFonts: false, fontFiles: trueTypeFontPaths(), defaultFontFamily: CHART_FONT },
  });
  return resvg.render().asPng();
}
