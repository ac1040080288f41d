const WIDTH = 112;
const HEIGHT = 28;
const PAD = 3;

/**
 * A small inline line chart of a series (oldest first), scaled to its own largest value, with the
 * last point marked. The numbers themselves are the image's accessible name, given by the caller.
 */
export function Sparkline({ values, label }: { values: number[]; label: string }) {
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? (WIDTH - 2 * PAD) / (values.length - 1) : 0;
  const points = values.map((v, i) => [PAD + i * step, HEIGHT - PAD - (v / max) * (HEIGHT - 2 * PAD)] as const);
  const last = points.at(-1);
  return (
    <svg
      className="sparkline"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width={WIDTH}
      height={HEIGHT}
      role="img"
      aria-label={label}
    >
      <polyline points={points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')} />
      {last && <circle cx={last[0]} cy={last[1]} r={2.5} />}
    </svg>
  );
}
