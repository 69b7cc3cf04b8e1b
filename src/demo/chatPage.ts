import { demoConversation } from './demoConversation.js';
import { documentedSnippet } from './documentedSnippet.js';
import { escapeHtml } from './escapeHtml.js';

/**
 * The demo publisher's page: a chat answer, and below it the ad slot. The answer is long enough
 * that the slot starts below the fold, so the impression fires only when the reader scrolls to it.
 * Below the answer is docs/rendering.md's snippet, as written (only adsvc's origin put in): it loads
 * the render kit from adsvc, asks this page's backend for the ad (the publisher token stays on the
 * server) and hands it to adsvc.render.
 */
export function chatPage(adsvcOrigin: string): string {
  const answer = demoConversation.response.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n        ');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Demo chat (adsvc demo publisher)</title>
  <link rel="icon" href="data:,">
  <style>
    body { margin: 0; background: #f6f7f9; color: #1f2328; font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
    main { max-width: 720px; margin: 0 auto; padding: 24px 16px 120px; }
    header { font-weight: 600; color: #57606a; margin-bottom: 24px; }
    .message { padding: 12px 16px; border-radius: 12px; margin: 12px 0; }
    .question { background: #dbeafe; margin-left: 80px; }
    /* Taller than a screen, so the ad below it enters the viewport only when the reader scrolls. */
    .answer { background: #fff; border: 1px solid #e5e7eb; min-height: 100vh; }
    .answer p { margin: 0 0 14px; }
  </style>
</head>
<body>
  <main>
    <header>Demo chat</header>
    <div class="message question">${escapeHtml(demoConversation.query)}</div>
    <div class="message answer">
        ${answer}
    </div>
    ${documentedSnippet(adsvcOrigin).trim()}
  </main>
  <script>
    // The demo's own, not the snippet's: it says on the page what came of the ad (the browser tests
    // wait for it) and keeps the ad in window.demoAd. It wraps adsvc.render once the kit is there:
    // the snippet's callback that calls it runs after this one (Promise.all answers a turn after the
    // kit's promise), so the snippet's render goes through the wrapper.
    window.adsvcKit.then(
      function () {
        var render = adsvc.render;
        adsvc.render = function (slot, ad, options) {
          window.demoAd = ad;
          var handle = render(slot, ad, options);
          document.body.setAttribute('data-ad-state', handle ? 'rendered' : 'empty');
          return handle;
        };
      },
      function () { document.body.setAttribute('data-ad-state', 'failed'); }
    );
  </script>
</body>
</html>
`;
}
