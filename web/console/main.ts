import 'uplot/dist/uPlot.min.css';
import './console.css';
import { html, render } from 'htm/preact';
import { Console } from './consoleShell.js';

render(html`<${Console} />`, document.getElementById('console')!);
