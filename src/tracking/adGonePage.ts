/**
 * What a reader who clicks an ad whose creative no longer exists (its campaign, line item or creative
 * was deleted; they are deleted outright, destination and all) sees: a page, not the API's JSON. The
 * click is not recorded: nobody reached the advertiser.
 */
export const AD_GONE_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Ad no longer available</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #1f2937">
<h1 style="font-size: 1.25rem">This ad is no longer available</h1>
<p>The advertiser has withdrawn it. You can close this tab and go back to the page you were reading.</p>
</body>
</html>
`;
