// The charts chunk (chunk-charts.js, loaded on first use by chunks.js): Chart.js with only the parts
// the page's bar and line charts use; its licence banner is kept.
import { Chart, BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip);
document.dispatchEvent(new CustomEvent('trainmem:chunk', { detail: { name: 'charts', exports: { Chart } } }));
