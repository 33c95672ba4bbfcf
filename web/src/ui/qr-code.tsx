import { useMemo } from "preact/hooks";
import { encode } from "uqr";

/**
 * `text` as a QR code, drawn here (uqr, bundled: no image service sees the link) as an SVG of dark
 * modules on a light square with the standard quiet zone, so phone cameras read it in dark mode too.
 *
 * @example <QrCode text={joinUrl} label="QR code of the join link" />
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const { size, path } = useMemo(() => {
    // Error correction M: still readable with a glare or a thumb over a corner of the screen.
    const qr = encode(text, { ecc: "M", border: 4 });
    let d = "";
    qr.data.forEach((row, y) => {
      row.forEach((dark, x) => {
        if (dark) d += `M${x},${y}h1v1h-1z`;
      });
    });
    return { size: qr.size, path: d };
  }, [text]);
  return (
    <svg
      class="qr"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${size} ${size}`}
      shape-rendering="crispEdges"
      xmlns="http://www.w3.org/2000/svg"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
