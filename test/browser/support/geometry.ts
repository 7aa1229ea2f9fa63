import type { Locator } from 'playwright-core';

// The measurements run in the page; written as strings, as the suite's other in-page code is
// (this project's TypeScript has no DOM library).

/**
 * How many lines the text of `locator`'s element takes: the distinct tops of its content's line
 * boxes (a Range's client rects), so a phone broken mid-number reads 2, one kept whole reads 1,
 * whatever the height of the cell or row around it.
 */
export async function lineCount(locator: Locator): Promise<number> {
  return (await locator.evaluate(`(element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    const half = (parseFloat(getComputedStyle(element).fontSize) || 14) / 2;
    const tops = [...range.getClientRects()]
      .filter((rect) => rect.width > 0 && rect.height > 0)
      .map((rect) => rect.top)
      .sort((a, b) => a - b);
    return tops.filter((top, i) => i === 0 || top - tops[i - 1] > half).length;
  }`)) as number;
}

/** The words of `locator`'s text that are split over two lines (a word broken mid-word). */
export async function brokenWords(locator: Locator): Promise<string[]> {
  return (await locator.evaluate(`(element) => {
    const broken = [];
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
        if (tops.size > 1) broken.push(match[0]);
      }
    }
    return broken;
  }`)) as string[];
}

/** How far `locator`'s element reaches past the right edge of `container`'s box, in px (≤ 0: inside). */
export async function overhang(locator: Locator, container: Locator): Promise<number> {
  const [inner, outer] = await Promise.all([locator.boundingBox(), container.boundingBox()]);
  if (!inner || !outer) throw new Error('an element to measure is not shown');
  return Math.round(inner.x + inner.width - (outer.x + outer.width));
}
