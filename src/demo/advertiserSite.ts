import { escapeHtml } from './escapeHtml.js';

/** The demo advertiser's site: the page a click lands on (listing what the redirect added) and the creative's image. */
export function landingPage(parameters: Array<[string, string]>): string {
  const rows = parameters
    .map(([name, value]) => `<li><code>${escapeHtml(name)}</code> = <code>${escapeHtml(value)}</code></li>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Trailhead Outfitters</title></head>
<body style="font: 16px/1.6 system-ui, sans-serif; max-width: 640px; margin: 40px auto">
  <h1>Trailhead Outfitters</h1>
  <p>The advertiser's landing page. The click went through adsvc's redirect, which added:</p>
  <ul id="parameters">${rows}</ul>
</body></html>
`;
}

export const rainShellImage = `<svg xmlns="http://www.w3.org/2000/svg" width="176" height="176" viewBox="0 0 176 176">
  <rect width="176" height="176" fill="#dbeafe"/>
  <path d="M0 132 L52 70 L84 104 L118 56 L176 126 L176 176 L0 176 Z" fill="#64748b"/>
  <path d="M118 56 L134 75 L124 72 L116 82 L108 72 Z" fill="#f8fafc"/>
  <path d="M62 64 q26 -22 52 0 l14 22 -14 8 v48 h-52 v-48 l-14 -8 z" fill="#f97316"/>
  <path d="M88 46 v96" stroke="#c2410c" stroke-width="3"/>
</svg>
`;
