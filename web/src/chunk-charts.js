// The charts chunk (chunk-charts.js, loaded on first use by chunks.js): Chart.js with only the parts
// the page's bar, line and treemap charts use (the treemap from chartjs-chart-treemap); their
// licence banners are kept.
import { Chart, BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip } from 'chart.js';
import { TreemapController, TreemapElement } from 'chartjs-chart-treemap';

Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip,
  TreemapController, TreemapElement);
document.dispatchEvent(new CustomEvent('trainmem:chunk', { detail: { name: 'charts', exports: { Chart } } }));
