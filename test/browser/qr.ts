import { createRequire } from "node:module";
import type { Locator, Page } from "playwright-core";

const require = createRequire(import.meta.url);

/**
 * Decodes the QR code drawn on the page with jsQR (from node_modules: nothing fetched). The console's
 * Content-Security-Policy allows no inline script, so jsQR runs in a blank scratch page of the same
 * browser context, given the code's SVG markup.
 */
export async function decodeQr(page: Page, qr: Locator): Promise<string | null> {
  const markup = await qr.evaluate((svg: SVGSVGElement) => new XMLSerializer().serializeToString(svg));
  const scratch = await page.context().newPage();
  try {
    await scratch.addScriptTag({ path: require.resolve("jsqr/dist/jsQR.js") });
    return await scratch.evaluate(async (svgMarkup: string) => {
      const image = new Image();
      image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svgMarkup)}`;
      await image.decode();
      const canvas = document.createElement("canvas");
      canvas.width = 400;
      canvas.height = 400;
      const context = canvas.getContext("2d");
      if (!context) return null;
      context.drawImage(image, 0, 0, 400, 400);
      const pixels = context.getImageData(0, 0, 400, 400);
      type Decoder = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
      return (window as unknown as { jsQR: Decoder }).jsQR(pixels.data, 400, 400)?.data ?? null;
    }, markup);
  } finally {
    await scratch.close();
  }
}
