/*!
 * adsvc render kit, version 1 (README: "Rendering ads in the browser").
 * adsvc.render(container, ad, options?) draws the ad of a POST /v1/serve answer and fires its
 * tracking links the way the billing rules require. No dependencies; safe to load more than once.
 */
(function (root) {
  'use strict';

  var VERSION = '1';
  /** The impression counts once this share of the card has been on screen (IAB/MRC's pixel rule). */
  var VISIBLE_SHARE = 0.5;
  var STYLE_ELEMENT_ID = 'adsvc-render-v1-style';
  /**
   * A colour for the page's colour scheme: the light one, then light-dark() of both, which follows the
   * `color-scheme` the page declares (`<meta name="color-scheme" content="dark">`, or `light dark`
   * with the reader's system dark) and is light on a page that declares none. A browser without
   * light-dark() (before 2024) drops that declaration and keeps the light one.
   */
  function schemeColor(property, light, dark) {
    return property + ':' + light + ';' + property + ':light-dark(' + light + ',' + dark + ')';
  }
  var STYLES = [
    ':where(.adsvc-card){box-sizing:border-box;max-width:560px;margin:16px 0;border:1px solid #d9dce1;' + schemeColor('border-color', '#d9dce1', '#30363d') +
      ';border-radius:12px;' + schemeColor('background', '#fff', '#161b22') + ';' + schemeColor('color', '#1f2328', '#e6edf3') +
      ';font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow:hidden}',
    ':where(.adsvc-card) *{box-sizing:border-box}',
    ':where(.adsvc-card__link){display:flex;gap:14px;padding:14px 16px;color:inherit;text-decoration:none}',
    ':where(.adsvc-card__link):hover :where(.adsvc-card__title){text-decoration:underline}',
    ':where(.adsvc-card__link):focus-visible{outline:2px solid #2563eb;outline-offset:-2px}',
    ':where(.adsvc-card__image){flex:none;width:88px;height:88px;border-radius:8px;object-fit:cover;' + schemeColor('background', '#f3f4f6', '#21262d') + '}',
    ':where(.adsvc-card__text){display:flex;flex-direction:column;gap:4px;min-width:0}',
    ':where(.adsvc-card__meta){display:flex;gap:8px;align-items:baseline;font-size:12px;' + schemeColor('color', '#57606a', '#9198a1') + '}',
    ':where(.adsvc-card__label){font-weight:600;letter-spacing:.02em;' + schemeColor('color', '#57606a', '#9198a1') + '}',
    // The inline end: after the dot in a left-to-right card, before it (on its left) in a right-to-left one.
    ':where(.adsvc-card__brand)::before{content:"\\00B7";margin-inline-end:8px}',
    ':where(.adsvc-card__title){font-size:16px;font-weight:600;overflow-wrap:anywhere}',
    // pre-line: a body may hold line breaks (docs/management.md), shown as such; runs of spaces still fold.
    ':where(.adsvc-card__body){overflow-wrap:anywhere;white-space:pre-line}',
    ':where(.adsvc-card__footer){display:flex;gap:12px;align-items:center;margin-top:6px}',
    ':where(.adsvc-card__cta){flex:none;padding:4px 12px;border-radius:999px;' + schemeColor('background', '#1f2328', '#e6edf3') + ';' +
      schemeColor('color', '#fff', '#1f2328') + ';font-weight:600;font-size:13px}',
    ':where(.adsvc-card__url){font-size:12px;' + schemeColor('color', '#57606a', '#9198a1') + ';overflow:hidden;text-overflow:ellipsis;white-space:nowrap}',
    // A narrow card (a phone): a smaller image beside the label and title only, the body and footer
    // under both at the card's full width. The text column beside an 88 px image would be ~170 px on
    // a 360 px screen, and the card twice as tall. The image's column is `auto`: without an image it
    // is empty and takes no room (items spanning the 1fr column do not size it).
    ':where(.adsvc-card--narrow) :where(.adsvc-card__link){display:grid;grid-template-columns:auto 1fr;gap:4px 0;padding:12px 14px;align-items:start}',
    ':where(.adsvc-card--narrow) :where(.adsvc-card__image){width:56px;height:56px;margin-inline-end:12px;grid-row:1/span 2}',
    ':where(.adsvc-card--narrow) :where(.adsvc-card__text){display:contents}',
    ':where(.adsvc-card--narrow) :where(.adsvc-card__meta,.adsvc-card__title){grid-column:2}',
    ':where(.adsvc-card--narrow) :where(.adsvc-card__body,.adsvc-card__footer){grid-column:1/-1}'
  ].join('\n');
  /**
   * Below this width a card gets the narrow layout (the class adsvc-card--narrow). Measured with a
   * ResizeObserver, not a CSS container query: a query container (`container-type: inline-size`)
   * takes its width from its parent only, never from its content, so a card in a slot sized to its
   * content (a flex row's item, an inline-block, a float, a grid's auto column: v1 pages do that)
   * would collapse to nothing.
   */
  var NARROW_WIDTH = 420;

  /** Cards rendered into each container, so a second render replaces the first cleanly. */
  var renderedIn = typeof WeakMap === 'function' ? new WeakMap() : null;
  /** Pixel images in flight: holding them keeps the request alive until it completes. */
  var pixelsInFlight = [];

  /** An absolute http(s) URL, or null: javascript:, data: and anything unparsable never reach the page. */
  function httpUrl(value) {
    if (typeof value !== 'string' || value === '') return null;
    try {
      var url = new URL(value, document.baseURI);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
    } catch (error) {
      return null;
    }
  }

  function text(value) {
    return typeof value === 'string' ? value : '';
  }

  /** Every creative string goes through textContent: markup in it shows as text, never as HTML. */
  function element(tag, className, content) {
    var node = document.createElement(tag);
    node.className = className;
    if (content !== undefined) node.textContent = content;
    return node;
  }

  /** The stylesheet as one constructed sheet, adopted by each document or shadow root a card is drawn in. */
  var constructedSheet = null;

  /**
   * Puts the stylesheet where the card is: its document, or the shadow root a chat widget (a web
   * component) draws its messages in, which a document's stylesheets do not reach. A constructed
   * stylesheet (adoptedStyleSheets) where the browser has them: a page's Content-Security-Policy
   * `style-src` refuses a <style> element without 'unsafe-inline' but does not govern them, so a
   * strict policy still gets a styled card with its label set apart. Elsewhere, a <style> element.
   */
  function installStyles(container) {
    var scope = container.getRootNode ? container.getRootNode() : document;
    var inShadowRoot = typeof ShadowRoot === 'function' && scope instanceof ShadowRoot;
    // A container not yet attached is styled as part of its document.
    if (!inShadowRoot) scope = container.ownerDocument;
    // A constructed sheet belongs to the document that made it: a same-origin frame's gets a <style>.
    if (container.ownerDocument === document && adoptStyles(scope)) return;
    if (scope.getElementById(STYLE_ELEMENT_ID)) return;
    var style = scope.ownerDocument ? scope.ownerDocument.createElement('style') : scope.createElement('style');
    style.id = STYLE_ELEMENT_ID;
    style.textContent = STYLES;
    (inShadowRoot ? scope : scope.head || scope.documentElement).appendChild(style);
  }

  /** True once `scope` has adopted the constructed sheet; false where the browser cannot (Safari before 16.4). */
  function adoptStyles(scope) {
    if (!('adoptedStyleSheets' in scope) || typeof CSSStyleSheet !== 'function') return false;
    try {
      if (!constructedSheet) {
        var sheet = new CSSStyleSheet();
        sheet.replaceSync(STYLES);
        constructedSheet = sheet;
      }
      if (scope.adoptedStyleSheets.indexOf(constructedSheet) === -1) {
        scope.adoptedStyleSheets = scope.adoptedStyleSheets.concat([constructedSheet]);
      }
      return true;
    } catch (error) {
      return false;
    }
  }

  function firePixel(url) {
    var pixel = new Image();
    var done = function () {
      var index = pixelsInFlight.indexOf(pixel);
      if (index !== -1) pixelsInFlight.splice(index, 1);
    };
    pixel.onload = done;
    pixel.onerror = function () {
      done();
      // Nothing else would say it: the card stays on the page, and only the browser's console names
      // a Content-Security-Policy refusal. The service answers a counted pixel with a GIF, never an error.
      if (root.console) {
        root.console.warn(
          'adsvc.render: the impression pixel did not load, so this impression is not counted: refused by ' +
            "the page's Content-Security-Policy (img-src must allow " + new URL(url).origin + '), a blocker, or the service unavailable'
        );
      }
    };
    pixelsInFlight.push(pixel);
    // An image request, never fetch() or XMLHttpRequest: the spec's rule 1 for billable impressions.
    pixel.src = url;
  }

  /**
   * Fires the impression once: the first time at least half of the card is on screen while the page
   * is visible, or, sooner, when the reader presses on the card before that: on a phone a tall card
   * is often tapped with less than half of it on screen, and the tap is the proof it was seen. A
   * press is a pointer that went down on the card coming up on it (a tap, a mouse click), a click
   * (what a screen reader's activation sends, and all a browser without Pointer Events sends) or
   * Enter on its focused link. A touch that becomes a
   * scroll is no press: the browser cancels that pointer (pointercancel) and never sends its
   * pointerup, so a swipe that starts on a sliver of the card claims nothing. Only the browser's
   * own events count (`isTrusted`): one a script dispatches claims nothing. The pointerup comes
   * before the click, so the pixel is requested before the click's navigation starts; that click
   * comes well within a second of its impression and the service stores it `click_too_fast`,
   * unbilled, as it stores any click that fast. Without IntersectionObserver visibility cannot be
   * measured, so only a press claims the impression.
   */
  function watchViewability(card, impressionUrl, onImpression) {
    var fired = false;
    var halfVisible = false;
    var observer;
    // The pointers down on the card and not cancelled since, by pointerId.
    var pointersDown = {};
    var fire = function () {
      fired = true;
      stop();
      firePixel(impressionUrl);
      if (typeof onImpression === 'function') onImpression();
    };
    var check = function () {
      if (fired || !halfVisible || document.visibilityState === 'hidden') return;
      fire();
    };
    var pressed = function (event) {
      if (fired || !event.isTrusted) return;
      if (event.type === 'pointerdown') {
        pointersDown[event.pointerId] = true;
        return;
      }
      if (event.type === 'pointercancel') {
        delete pointersDown[event.pointerId];
        return;
      }
      if (event.type === 'pointerup' && !pointersDown[event.pointerId]) return;
      if (event.type === 'keydown' && event.key !== 'Enter') return;
      fire();
    };
    // A press is one pointer's down and up on the card. The mouse's pointerId is the same for every
    // press, and a pointer that went down on the card can end off it without the card hearing (a
    // drag of the card's link is cancelled at the document, a release elsewhere): any pointerdown or
    // pointerup off the card, or a cancel anywhere, forgets it, so that a later press that went down
    // off the card and came up on it claims nothing. Heard on each tree the card is in, innermost
    // first: its shadow roots, then its own document (a same-origin frame's, not the kit's, which
    // hears nothing of that frame's pointers). composedPath, not the target, and seen from each
    // tree: a listener on a document or shadow root sees the path into a shadow root inside it only
    // as far as that root's host (a closed root's nodes are never shown outside it), so a press that
    // went into the next tree in is left to that tree's own listener.
    var trees = cardTrees(card);
    var forgetOffCard = function (event) {
      if (event.type === 'pointercancel') {
        delete pointersDown[event.pointerId];
        return;
      }
      var path = typeof event.composedPath === 'function' ? event.composedPath() : [];
      if (path.length === 0) {
        if (!card.contains(event.target)) delete pointersDown[event.pointerId];
        return;
      }
      if (path.indexOf(card) !== -1) return;
      var inner = trees[trees.indexOf(event.currentTarget) - 1];
      if (inner && path.indexOf(inner.host) !== -1) return;
      delete pointersDown[event.pointerId];
    };
    var TREE_POINTER_EVENTS = ['pointerdown', 'pointercancel', 'pointerup'];
    var PRESS_EVENTS = ['pointerdown', 'pointercancel', 'pointerup', 'click', 'keydown'];
    var stop = function () {
      if (observer) observer.disconnect();
      document.removeEventListener('visibilitychange', check);
      trees.forEach(function (tree) {
        TREE_POINTER_EVENTS.forEach(function (type) {
          tree.removeEventListener(type, forgetOffCard, true);
        });
      });
      PRESS_EVENTS.forEach(function (type) {
        card.removeEventListener(type, pressed, true);
      });
    };
    // Capture phase: a handler of the page's inside the card that stops the event does not hide it.
    // A tree's capture listener runs before the card's, so a pointerup on the card keeps its pointer.
    PRESS_EVENTS.forEach(function (type) {
      card.addEventListener(type, pressed, true);
    });
    trees.forEach(function (tree) {
      TREE_POINTER_EVENTS.forEach(function (type) {
        tree.addEventListener(type, forgetOffCard, true);
      });
    });
    if (typeof IntersectionObserver !== 'function') return stop;
    observer = new IntersectionObserver(
      function (entries) {
        var entry = entries[entries.length - 1];
        halfVisible = entry.isIntersecting && entry.intersectionRatio >= VISIBLE_SHARE;
        check();
      },
      { threshold: [0, VISIBLE_SHARE] }
    );
    observer.observe(card);
    document.addEventListener('visibilitychange', check);
    return stop;
  }

  /**
   * The shadow roots the card is in, innermost first, then its document. A ShadowRoot is known by its
   * host, not instanceof: a same-origin frame has its own ShadowRoot. A card not attached yet is
   * taken as part of its document.
   */
  function cardTrees(card) {
    var trees = [];
    var tree = card.getRootNode ? card.getRootNode() : card.ownerDocument;
    while (tree.nodeType === 11 && tree.host) {
      trees.push(tree);
      tree = tree.host.getRootNode();
    }
    trees.push(tree.nodeType === 9 ? tree : card.ownerDocument);
    return trees;
  }

  /**
   * Keeps the class adsvc-card--narrow on a card narrower than NARROW_WIDTH. A ResizeObserver reports
   * after layout and before paint, so the card is never drawn in the other layout first. Without
   * one (browsers before 2020) the card keeps the wide layout.
   */
  function watchWidth(card) {
    if (typeof ResizeObserver !== 'function') return function () {};
    var observer = new ResizeObserver(function (entries) {
      var width = entries[entries.length - 1].contentRect.width;
      // A card not laid out (display: none, detached) measures 0: leave its layout as it was.
      if (width > 0) card.classList.toggle('adsvc-card--narrow', width < NARROW_WIDTH);
    });
    observer.observe(card);
    return function () {
      observer.disconnect();
    };
  }

  /**
   * Cards drawn by this copy of the kit, and a prefix of its own, so that each card's note id is
   * unique in the page, a second copy of the kit on it included.
   */
  var cardsDrawn = 0;
  var ID_PREFIX = 'adsvc-' + Math.random().toString(36).slice(2, 8) + '-';

  function buildCard(ad, clickUrl, target) {
    cardsDrawn += 1;
    var content = ad.render && typeof ad.render === 'object' ? ad.render : {};
    var card = element('div', 'adsvc-card');
    card.setAttribute('data-adsvc-format', 'contextual_card');

    // The whole card is one link to click_url: the redirect layer counts the click, then sends the
    // user on to the advertiser. rel=sponsored tells crawlers it is paid; noopener cuts window.opener.
    var link = element('a', 'adsvc-card__link');
    link.setAttribute('href', clickUrl);
    link.setAttribute('rel', 'sponsored noopener');
    if (target === '_blank') link.setAttribute('target', '_blank');

    var imageUrl = httpUrl(content.image_url);
    if (imageUrl) {
      var image = element('img', 'adsvc-card__image');
      image.setAttribute('src', imageUrl);
      image.setAttribute('alt', '');
      image.setAttribute('decoding', 'async');
      link.appendChild(image);
    }

    var textColumn = element('span', 'adsvc-card__text');
    var meta = element('span', 'adsvc-card__meta');
    // The disclosure is not optional: an empty or missing label still shows "Sponsored".
    meta.appendChild(element('span', 'adsvc-card__label', text(content.label).trim() || 'Sponsored'));
    if (text(content.brand_name)) meta.appendChild(element('span', 'adsvc-card__brand', content.brand_name));
    textColumn.appendChild(meta);
    textColumn.appendChild(element('span', 'adsvc-card__title', text(content.title)));
    if (text(content.body)) textColumn.appendChild(element('span', 'adsvc-card__body', content.body));
    var footer = element('span', 'adsvc-card__footer');
    if (text(content.cta)) footer.appendChild(element('span', 'adsvc-card__cta', content.cta));
    if (text(content.display_url)) footer.appendChild(element('span', 'adsvc-card__url', content.display_url));
    if (footer.firstChild) textColumn.appendChild(footer);
    link.appendChild(textColumn);

    card.appendChild(link);
    // A screen reader is told that the link opens a new tab: a note read as the link's description
    // (`hidden`: read through aria-describedby, never drawn). The link's name stays every text on
    // it: a shorter one (label, brand, title) would drop visible text from it, which WCAG 2.5.3
    // (label in name, axe's label-content-name-mismatch) refuses.
    if (target === '_blank') {
      var newTab = element('span', 'adsvc-card__new-tab', 'opens in a new tab');
      newTab.hidden = true;
      newTab.id = ID_PREFIX + cardsDrawn + '-new-tab';
      card.appendChild(newTab);
      link.setAttribute('aria-describedby', newTab.id);
    }
    return card;
  }

  /**
   * Renders `ad` (the `ad` of a serve answer, or the whole answer) into `container`, replacing what
   * an earlier render put there. Returns { element, destroy() }, or null when there is nothing to
   * show: `{ad: null}`, a format this version does not know, or tracking links that are not http(s).
   *
   * options.target: '_blank' (default: the chat stays open) or '_self'.
   * options.styles: false to skip the default stylesheet and style the .adsvc-card classes yourself.
   * options.onImpression: called once, right after the impression pixel is requested.
   */
  function render(container, ad, options) {
    if (!container || container.nodeType !== 1) throw new TypeError('adsvc.render: container must be a DOM element');
    var settings = options || {};
    var previous = renderedIn && renderedIn.get(container);
    if (previous) previous.destroy();

    var payload = ad && typeof ad === 'object' && 'ad' in ad ? ad.ad : ad;
    if (!payload || typeof payload !== 'object') return null;
    if (payload.format !== 'contextual_card') {
      if (root.console) root.console.warn('adsvc.render: unsupported ad format ' + String(payload.format));
      return null;
    }
    var tracking = payload.tracking || {};
    var clickUrl = httpUrl(tracking.click_url);
    var impressionUrl = httpUrl(tracking.impression_url);
    if (!clickUrl || !impressionUrl) {
      if (root.console) root.console.warn('adsvc.render: the ad has no usable tracking links; not rendered');
      return null;
    }

    if (settings.styles !== false) installStyles(container);
    var card = buildCard(payload, clickUrl, settings.target === '_self' ? '_self' : '_blank');
    container.appendChild(card);
    var stopWatching = watchViewability(card, impressionUrl, settings.onImpression);
    var stopSizing = watchWidth(card);

    var handle = {
      element: card,
      destroy: function () {
        stopWatching();
        stopSizing();
        if (card.parentNode) card.parentNode.removeChild(card);
        if (renderedIn && renderedIn.get(container) === handle) renderedIn.delete(container);
      }
    };
    if (renderedIn) renderedIn.set(container, handle);
    return handle;
  }

  var api = root.adsvc || {};
  api.render = render;
  api.renderVersion = VERSION;
  root.adsvc = api;
})(typeof window !== 'undefined' ? window : this);
