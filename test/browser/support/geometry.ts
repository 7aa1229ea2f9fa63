import type { Locator } from 'playwright-core';

/**
 * How many lines the text of `locator`'s element takes: its height over its line height
 * (rounded), so a phone broken mid-number reads 2, one kept whole reads 1.
 */
export async function lineCount(locator: Locator): Promise<number> {
  return locator.evaluate((element) => {
    const style = getComputedStyle(element);
    const lineHeight = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.55;
    return Math.round(element.getBoundingClientRect().height / lineHeight);
  });
}

/** The words of `locator`'s text that are split over two lines (a word broken mid-word). */
export async function brokenWords(locator: Locator): Promise<string[]> {
  return locator.evaluate((element) => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
        if (tops.size > 1) broken.push(match[0]);
      }
    }
    return broken;
  });
}

/** How far `locator`'s element reaches past the right edge of `container`'s box, in px (≤ 0: inside). */
export async function overhang(locator: Locator, container: Locator): Promise<number> {
  const [inner, outer] = await Promise.all([locator.boundingBox(), container.boundingBox()]);
  if (!inner || !outer) throw new Error('an element to measure is not shown');
  return Math.round(inner.x + inner.width - (outer.x + outer.width));
}
