/**
 * The island of the player view, drawn (`GET /api/admin/players/{key}/island`; spec 2.9; docs/architecture.md,
 * "Operator console"): two canvases, each with a text alternative that says what it shows.
 * - The island: the 1024 m world with its terrain zones (discs tinted by type, labelled), clearings, regrow
 *   regions (dashed), the mountain triad's peaks (triangles), harvest nodes (dots), animals (crosses), the
 *   RTS core's square, and the camp (a ringed star, labelled).
 * - The RTS core: the 200 m heightmap shaded by height and slope (`island.ts`), with its nature scatter and
 *   the camp when it falls inside; absent until the player has exported the island from the RTS.
 * The numbers (frame, shading) are `site/admin/island.ts`'s, tested alone.
 */
import { playerIsland, type PlayerIslandResponse } from '../api.js';
import { h } from '../../dom.js';
import { formatTime } from '../confirm.js';
import {
  HEIGHTMAP_RESOLUTION,
  RTS_SIZE_M,
  WORLD_SIZE_M,
  heightRange,
  shadeHeightmap,
  toCanvas,
  toPixels,
  within,
  zoneColour,
  type IslandPoint,
} from '../island.js';
import { facts, isAbort, problemBox, section } from './common.js';
import type { ConsoleContext } from './context.js';

/** Side of each canvas, CSS pixels. */
export const CANVAS_PX = 360;

type IslandState = NonNullable<PlayerIslandResponse['island']>['state'];

/** A canvas of {@link CANVAS_PX}, sharp on a high-density screen, with its 2D context. */
function canvas(id: string, label: string): { el: HTMLCanvasElement; g: CanvasRenderingContext2D | null } {
  const el = h('canvas', { id, role: 'img', 'aria-label': label, class: 'island-canvas' });
  const ratio = Math.min(2, Math.max(1, globalThis.devicePixelRatio || 1));
  el.width = CANVAS_PX * ratio;
  el.height = CANVAS_PX * ratio;
  el.style.width = `${CANVAS_PX}px`;
  el.style.height = `${CANVAS_PX}px`;
  const g = el.getContext('2d');
  g?.scale(ratio, ratio);
  return { el, g };
}

function star(g: CanvasRenderingContext2D, x: number, y: number, r: number): void {
  g.beginPath();
  for (let i = 0; i < 10; i++) {
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    const rr = i % 2 === 0 ? r : r / 2.4;
    g.lineTo(x + Math.cos(a) * rr, y + Math.sin(a) * rr);
  }
  g.closePath();
}

/** Draw the whole island (see the module header). */
function drawWorld(g: CanvasRenderingContext2D, s: IslandState): void {
  const at = (p: IslandPoint) => toCanvas(p, WORLD_SIZE_M, CANVAS_PX);
  const px = (m: number) => toPixels(m, WORLD_SIZE_M, CANVAS_PX);
  g.fillStyle = '#bcd9ef';
  g.fillRect(0, 0, CANVAS_PX, CANVAS_PX);
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.font = '11px system-ui, sans-serif';
  for (const z of s.terrainZones) {
    const c = at(z.center);
    g.beginPath();
    g.arc(c.px, c.py, px(z.radiusM), 0, 2 * Math.PI);
    g.globalAlpha = 0.55;
    g.fillStyle = zoneColour(z.type);
    g.fill();
    g.globalAlpha = 1;
    g.strokeStyle = 'rgba(0,0,0,0.35)';
    g.lineWidth = 1;
    g.stroke();
  }
  for (const r of s.regrowRegions) {
    const c = at(r.center);
    g.beginPath();
    g.setLineDash([4, 3]);
    g.arc(c.px, c.py, px(r.radiusM), 0, 2 * Math.PI);
    g.strokeStyle = '#5b4a2f';
    g.stroke();
    g.setLineDash([]);
  }
  for (const c of s.clearings) {
    const p = at(c.center);
    g.beginPath();
    g.arc(p.px, p.py, Math.max(2, px(c.radiusM)), 0, 2 * Math.PI);
    g.strokeStyle = '#2d6a2d';
    g.lineWidth = 1.5;
    g.stroke();
  }
  // the RTS core
  const core = at({ x: -RTS_SIZE_M / 2, z: -RTS_SIZE_M / 2 });
  g.strokeStyle = '#222';
  g.lineWidth = 1;
  g.setLineDash([2, 2]);
  g.strokeRect(core.px, core.py, px(RTS_SIZE_M), px(RTS_SIZE_M));
  g.setLineDash([]);
  for (const n of s.nodes) {
    const p = at(n.position);
    g.beginPath();
    g.arc(p.px, p.py, 2.2, 0, 2 * Math.PI);
    g.fillStyle = '#3b2a14';
    g.fill();
  }
  g.strokeStyle = '#7a1f1f';
  for (const a of s.animals) {
    const p = at(a.position);
    g.beginPath();
    g.moveTo(p.px - 3, p.py - 3);
    g.lineTo(p.px + 3, p.py + 3);
    g.moveTo(p.px + 3, p.py - 3);
    g.lineTo(p.px - 3, p.py + 3);
    g.stroke();
  }
  for (const peak of s.mountainTriad.peaks) {
    const p = at(peak);
    g.beginPath();
    g.moveTo(p.px, p.py - 6);
    g.lineTo(p.px + 5, p.py + 4);
    g.lineTo(p.px - 5, p.py + 4);
    g.closePath();
    g.fillStyle = '#4a4036';
    g.fill();
  }
  g.fillStyle = '#111';
  for (const z of s.terrainZones) {
    const c = at(z.center);
    g.fillText(z.type, c.px, c.py);
  }
  if (s.campPosition) drawCamp(g, at(s.campPosition));
}

function drawCamp(g: CanvasRenderingContext2D, c: { px: number; py: number }): void {
  g.beginPath();
  g.arc(c.px, c.py, 9, 0, 2 * Math.PI);
  g.fillStyle = '#fff';
  g.fill();
  g.lineWidth = 2;
  g.strokeStyle = '#c0392b';
  g.stroke();
  star(g, c.px, c.py, 6);
  g.fillStyle = '#c0392b';
  g.fill();
  g.font = 'bold 11px system-ui, sans-serif';
  g.fillStyle = '#111';
  g.fillText('Camp', c.px, c.py + 17);
}

/** Draw the RTS core's heightmap (see the module header). */
function drawCore(g: CanvasRenderingContext2D, s: IslandState): void {
  const map = s.rtsHeightmap!;
  const pixels = shadeHeightmap(map.heightsM, map.resolution, map.sizeM);
  const image = new ImageData(new Uint8ClampedArray(pixels), map.resolution, map.resolution);
  const off = document.createElement('canvas');
  off.width = map.resolution;
  off.height = map.resolution;
  off.getContext('2d')?.putImageData(image, 0, 0);
  g.imageSmoothingEnabled = true;
  g.drawImage(off, 0, 0, CANVAS_PX, CANVAS_PX);
  const at = (p: IslandPoint) => toCanvas(p, map.sizeM, CANVAS_PX);
  g.fillStyle = 'rgba(20,60,20,0.8)';
  for (const t of s.rtsNatureScatter) {
    const p = at(t);
    g.beginPath();
    g.arc(p.px, p.py, 1.6, 0, 2 * Math.PI);
    g.fill();
  }
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  if (s.campPosition && within(s.campPosition, map.sizeM)) drawCamp(g, at(s.campPosition));
}

/** The island section of an account, filled once the island has been read (the promise settles then). */
export function islandSection(key: string, ctx: ConsoleContext): { el: HTMLElement; done: Promise<void> } {
  const body = h('div', { 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Reading the island…'));
  const el = section('island', 'Island', body);
  const done = playerIsland(key, ctx.signal).then(
    (answer) => {
      if (ctx.signal.aborted) return;
      body.removeAttribute('aria-busy');
      const island = answer.island;
      if (!island) {
        body.replaceChildren(
          h('p', { class: 'muted', id: 'island-none' }, 'The player has never opened the island (nothing is created by looking).'),
        );
        return;
      }
      const s = island.state;
      const camp = s.campPosition ? `camp at x ${Math.round(s.campPosition.x)} m, z ${Math.round(s.campPosition.z)} m` : 'no camp placed';
      const zones = s.terrainZones.map((z) => z.type).join(', ');
      const world = canvas(
        'island-map',
        `Map of the island, ${WORLD_SIZE_M} m across, north up: ${s.terrainZones.length} terrain zones (${zones}), ${s.nodes.length} harvest nodes, ${s.animals.length} animals, ${camp}.`,
      );
      if (world.g) drawWorld(world.g, s);
      const figures: HTMLElement[] = [
        h(
          'figure',
          { class: 'island-figure' },
          world.el,
          h('figcaption', {}, `The island, ${WORLD_SIZE_M} m across, north up; the dashed square is the RTS core.`),
        ),
      ];
      if (s.rtsHeightmap && s.rtsHeightmap.heightsM.length === HEIGHTMAP_RESOLUTION * HEIGHTMAP_RESOLUTION) {
        const { min, max } = heightRange(s.rtsHeightmap.heightsM);
        const core = canvas(
          'island-heightmap',
          `RTS core heightmap, ${RTS_SIZE_M} m across, shaded by height and slope: heights from ${min.toFixed(1)} m to ${max.toFixed(1)} m, ${s.rtsNatureScatter.length} nature props.`,
        );
        if (core.g) drawCore(core.g, s);
        figures.push(
          h(
            'figure',
            { class: 'island-figure' },
            core.el,
            h('figcaption', {}, `The RTS core, ${RTS_SIZE_M} m across: heights ${min.toFixed(1)} m to ${max.toFixed(1)} m.`),
          ),
        );
      } else {
        figures.push(
          h(
            'p',
            { class: 'muted', id: 'heightmap-none' },
            'No RTS heightmap yet: it appears once the player exports the island from the RTS.',
          ),
        );
      }
      const legend = h(
        'ul',
        { class: 'legend', 'aria-label': 'Zone colours' },
        ...s.terrainZones.map((z) => h('li', {}, h('span', { class: 'swatch', style: `background:${zoneColour(z.type)}` }), z.type)),
      );
      body.replaceChildren(
        h('div', { class: 'island-figures' }, ...figures),
        legend,
        facts([
          ['Revision', String(island.revision)],
          ['Last change', formatTime(island.updatedAt)],
          ['Seed', String(s.seed)],
          [
            'Exported from the RTS',
            s.rtsExport ? `${s.rtsExport.biome} (${s.rtsExport.foundationId}), heights from the ${s.rtsExport.source}` : 'no',
          ],
        ]),
      );
    },
    (e: unknown) => {
      if (ctx.signal.aborted || isAbort(e)) return;
      body.removeAttribute('aria-busy');
      body.replaceChildren(problemBox(e));
    },
  );
  return { el, done };
}
