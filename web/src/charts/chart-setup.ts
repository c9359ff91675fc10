import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';

// Only the pieces the console draws, so the bundle carries no other chart types.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);
Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", sans-serif';
Chart.defaults.color = '#1b1f24';
// Drawn once in its final state: nothing moves for people who asked for less motion, and a screenshot is the chart.
Chart.defaults.animation = false;

export { Chart };
