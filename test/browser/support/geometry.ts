import type { Locator } from 'playwright-core';

// The measurements run in the page. They are passed as functions, never as strings: Playwright
// evaluates a string as an expression, so a string holding an arrow function yields the function
// itself (serialised as undefined) and the element is never measured. This project's TypeScript
// has no DOM library, so the page-side code reaches `document`, `getComputedStyle` and `NodeFilter`
// through the element's own document and window.

/**
 * How many lines the text of `locator`'s element takes: the distinct tops of its content's line
 * boxes (a Range's client rects), so a phone broken mid-number reads 2, one kept whole reads 1,
 * whatever the height of the cell or row around it.
 */
export async function lineCount(locator: Locator): Promise<number> {
  const lines: unknown = await locator.evaluate((element) => {
    const page = element.ownerDocument;
    const range = page.createRange();
    range.selectNodeContents(element);
    const half = (parseFloat(page.defaultView.getComputedStyle(element).fontSize) || 14) / 2;
    const tops = (
      Array.from(range.getClientRects()) as { width: number; height: number; top: number }[]
    )
      .filter((rect) => rect.width > 0 && rect.height > 0)
      .map((rect) => rect.top)
      .sort((a, b) => a - b);
    return tops.filter((top, i) => i === 0 || top - tops[i - 1] > half).length;
  });
  if (typeof lines !== 'number') throw new Error(`a line count came back as ${String(lines)}`);
  return lines;
}

/** The words of `locator`'s text that are split over two lines (a word broken mid-word). */
export async function brokenWords(locator: Locator): Promise<string[]> {
  const words: unknown = await locator.evaluate((element) => {
    const page = element.ownerDocument;
    const broken: string[] = [];
    const walker = page.createTreeWalker(element, page.defaultView.NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const text: string = node.textContent ?? '';
      for (const match of text.matchAll(/\S+/g)) {
        const range = page.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const rects = Array.from(range.getClientRects()) as { top: number }[];
        const tops = new Set(rects.map((rect) => Math.round(rect.top)));
        if (tops.size > 1) broken.push(match[0]);
      }
    }
    return broken;
  });
  if (!Array.isArray(words)) throw new Error(`broken words came back as ${String(words)}`);
  return words as string[];
}

/** How far `locator`'s element reaches past the right edge of `container`'s box, in px (≤ 0: inside). */
export async function overhang(locator: Locator, container: Locator): Promise<number> {
  const [inner, outer] = await Promise.all([locator.boundingBox(), container.boundingBox()]);
  if (!inner || !outer) throw new Error('an element to measure is not shown');
  return Math.round(inner.x + inner.width - (outer.x + outer.width));
}
