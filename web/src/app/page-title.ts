/** The browser tab's title for a page: `Campaigns · Campaign API dashboard`. */
export function pageTitle(page: string): string {
  return `${page} · Campaign API dashboard`;
}
