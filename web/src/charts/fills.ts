/**
 * Bar fills that tell series apart without colour: each outcome has its own pattern over its own colour
 * (Okabe–Ito, readable with colour blindness). Drawn on a small canvas, so nothing needs an inline style.
 */
type Mark = 'solid' | 'stripes' | 'dots' | 'cross' | 'lines';

export const OUTCOME_FILLS: Record<string, { colour: string; mark: Mark; says: string }> = {
  called: { colour: '#0072b2', mark: 'solid', says: 'solid' },
  denied: { colour: '#d55e00', mark: 'stripes', says: 'diagonal stripes' },
  rate_limited: { colour: '#e69f00', mark: 'dots', says: 'dots' },
  quota_exhausted: { colour: '#cc79a7', mark: 'cross', says: 'cross-hatch' },
  upstream_error: { colour: '#4d4d4d', mark: 'lines', says: 'horizontal lines' },
};

/** Colours for series with no meaning of their own (tools, keys, users). */
export const SERIES_COLOUR = '#0072b2';

const TILE = 10;

export function patternFill(colour: string, mark: Mark): CanvasPattern | string {
  if (mark === 'solid') return colour;
  const tile = document.createElement('canvas');
  tile.width = TILE;
  tile.height = TILE;
  const ctx = tile.getContext('2d');
  if (!ctx) return colour;
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, TILE, TILE);
  ctx.strokeStyle = '#ffffff';
  ctx.fillStyle = '#ffffff';
  ctx.lineWidth = 2;
  ctx.beginPath();
  if (mark === 'stripes') {
    ctx.moveTo(0, TILE);
    ctx.lineTo(TILE, 0);
    ctx.moveTo(-TILE / 2, TILE / 2);
    ctx.lineTo(TILE / 2, -TILE / 2);
    ctx.moveTo(TILE / 2, TILE * 1.5);
    ctx.lineTo(TILE * 1.5, TILE / 2);
    ctx.stroke();
  } else if (mark === 'dots') {
    ctx.arc(TILE / 2, TILE / 2, 2, 0, 2 * Math.PI);
    ctx.fill();
  } else if (mark === 'cross') {
    ctx.moveTo(TILE / 2, 0);
    ctx.lineTo(TILE / 2, TILE);
    ctx.moveTo(0, TILE / 2);
    ctx.lineTo(TILE, TILE / 2);
    ctx.stroke();
  } else {
    ctx.moveTo(0, TILE / 2);
    ctx.lineTo(TILE, TILE / 2);
    ctx.stroke();
  }
  return ctx.createPattern(tile, 'repeat') ?? colour;
}
