import { html } from 'htm/preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';

/**
 * The box a table scrolls sideways in (.table-wrap). While the table is wider than the box, the box
 * is a region named after the table, in the tab order: a keyboard user focuses it (with the focus
 * ring every control has) and scrolls it with the arrow keys, where the browser would not focus a
 * scroller by itself (Safari; axe-core's scrollable-region-focusable). While the table fits, the
 * box is neither: a tab stop that scrolls nothing would only be in the way.
 */
export function TableWrap(props: { label: string; children: ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  // After every render (the rows change the table's width) and whenever the box is resized.
  useLayoutEffect(() => {
    const element = box.current;
    if (element) setScrolls(element.scrollWidth > element.clientWidth);
  });
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setScrolls(element.scrollWidth > element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return html`<div
    class="table-wrap"
    ref=${box}
    tabindex=${scrolls ? 0 : undefined}
    role=${scrolls ? 'region' : undefined}
    aria-label=${scrolls ? `${props.label}, scrolls sideways` : undefined}
  >${props.children}</div>`;
}
