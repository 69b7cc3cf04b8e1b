import { demoConversation } from './demoConversation.js';
import { escapeHtml } from './escapeHtml.js';

/**
 * The demo publisher's page: a chat answer, and below it the ad slot. The answer is long enough
 * that the slot starts below the fold, so the impression fires only when the reader scrolls to it.
 * The page loads the render kit from adsvc as docs/rendering.md's snippet does, asks its own backend
 * for the ad (the publisher token stays on the server) and hands the answer to adsvc.render.
 */
export function chatPage(renderScriptUrl: string): string {
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
    <div id="ad-slot" aria-label="Advertisement"></div>
  </main>
  <script>
    // As docs/rendering.md's snippet: the kit is inserted, never in the page's way, and the ad is
    // rendered once both the kit and the answer's ad are there.
    var adsvcKit = new Promise(function (resolve, reject) {
      var script = document.createElement('script');
      script.src = ${JSON.stringify(renderScriptUrl).replace(/</g, '\\u003c')};
      script.onload = resolve;
      script.onerror = reject;
      document.head.append(script);
    });
    var ad = fetch('/api/ad', { method: 'POST' }).then(function (response) { return response.json(); });
    Promise.all([adsvcKit, ad])
      .then(function (loaded) {
        var answer = loaded[1];
        window.demoAd = answer.ad;
        adsvc.render(document.getElementById('ad-slot'), answer.ad);
        document.body.setAttribute('data-ad-state', answer.ad ? 'rendered' : 'empty');
      })
      .catch(function () { document.body.setAttribute('data-ad-state', 'failed'); });
  </script>
</body>
</html>
`;
}
