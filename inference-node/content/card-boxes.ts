/**
 * Filled cards behind quiz text, drawn by ffmpeg's drawbox at half the output size inside the
 * background chain, before its final upscale. Blending large boxes at full size every frame was
 * half of a quiz video's render time (libass blends each box per frame); at half size it costs a
 * quarter, and the upscale softens the edges by about one pixel. Text stays sharp: libass draws it
 * at full size afterwards.
 */

export interface CardBox {
  start: number;
  end: number;
  /** Full-size pixels. */
  x: number;
  y: number;
  w: number;
  h: number;
  /** RRGGBB */
  fill: string;
  /** 0 opaque .. 255 invisible, as in ASS. */
  alpha: number;
  /** RRGGBB of a 4 px outline, if any. */
  outline?: string;
}

/** Boxes are drawn at 1/BOX_SCALE of the output size. */
export const BOX_SCALE = 2;

const px = (value: number) => Math.round(value / BOX_SCALE);
const seconds = (value: number) => value.toFixed(3);

/**
 * drawbox filters for `boxes` (at 1/BOX_SCALE size), each enabled only while its box is shown.
 *
 * @example
 * cardBoxFilters([{ start: 1, end: 4, x: 100, y: 200, w: 400, h: 100, fill: "FFFFFF", alpha: 0 }]);
 * // ["drawbox=x=50:y=100:w=200:h=50:c=0xFFFFFF:t=fill:replace=1:enable='between(t,1.000,4.000)'"]
 */
export function cardBoxFilters(boxes: readonly CardBox[]): string[] {
  return boxes.flatMap((box) => {
    const where = `x=${px(box.x)}:y=${px(box.y)}:w=${px(box.w)}:h=${px(box.h)}`;
    const when = `enable='between(t,${seconds(box.start)},${seconds(box.end)})'`;
    const opaque = box.alpha === 0;
    const color = opaque ? `0x${box.fill}` : `0x${box.fill}@${(1 - box.alpha / 255).toFixed(3)}`;
    const fill = `drawbox=${where}:c=${color}:t=fill${opaque ? ":replace=1" : ""}:${when}`;
    return box.outline ? [fill, `drawbox=${where}:c=0x${box.outline}:t=${4 / BOX_SCALE}:${when}`] : [fill];
  });
}
