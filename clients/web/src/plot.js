// A live plot of chosen joint positions against simulated time over the last WINDOW_S seconds, drawn on a
// 2D canvas. Samples are kept per series in a ring bounded by time (and by MAX_SAMPLES).
const WINDOW_S = 10;
const MAX_SAMPLES = 4000;
const COLOURS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7'];

export class Plot {
	constructor(canvas, legend) {
		this.canvas = canvas;
		this.legend = legend;
		this.series = new Map(); // key -> { label, colour, t: [], v: [] }
		this.latestTime = 0;
		this.pending = false;
		this.nextColour = 0;
	}

	clear() {
		this.series.clear();
		this.latestTime = 0;
		this.nextColour = 0;
		this.renderLegend();
		this.requestDraw();
	}

	has(key) {
		return this.series.has(key);
	}

	toggle(key, label, on) {
		if (on && !this.series.has(key)) {
			this.series.set(key, { label, colour: COLOURS[this.nextColour++ % COLOURS.length], t: [], v: [] });
		} else if (!on) {
			this.series.delete(key);
		}
		this.renderLegend();
		this.requestDraw();
	}

	colour(key) {
		return this.series.get(key)?.colour;
	}

	// One sample per plotted series at simulated time `time` (s); `valueOf(key)` gives its value or undefined.
	add(time, valueOf) {
		if (time < this.latestTime) {
			// Time went back (reset or restore): start the window again.
			for (const s of this.series.values()) {
				s.t.length = 0;
				s.v.length = 0;
			}
		}
		this.latestTime = time;
		for (const [key, s] of this.series) {
			const v = valueOf(key);
			if (v === undefined || !Number.isFinite(v)) {
				continue;
			}
			s.t.push(time);
			s.v.push(v);
			let drop = 0;
			while (drop < s.t.length && (s.t[drop] < time - WINDOW_S || s.t.length - drop > MAX_SAMPLES)) {
				drop += 1;
			}
			if (drop > 0) {
				s.t.splice(0, drop);
				s.v.splice(0, drop);
			}
		}
		this.requestDraw();
	}

	renderLegend() {
		this.legend.replaceChildren(...[...this.series.values()].map((s) => {
			const item = document.createElement('span');
			item.className = 'legend-item';
			item.style.setProperty('--swatch', s.colour);
			item.textContent = s.label;
			return item;
		}));
	}

	requestDraw() {
		if (this.pending) {
			return;
		}
		this.pending = true;
		requestAnimationFrame(() => {
			this.pending = false;
			this.draw();
		});
	}

	draw() {
		const c = this.canvas;
		const dpr = window.devicePixelRatio || 1;
		const w = Math.max(1, Math.floor(c.clientWidth * dpr));
		const h = Math.max(1, Math.floor(c.clientHeight * dpr));
		if (c.width !== w || c.height !== h) {
			c.width = w;
			c.height = h;
		}
		const g = c.getContext('2d');
		g.setTransform(dpr, 0, 0, dpr, 0, 0);
		const W = c.clientWidth;
		const H = c.clientHeight;
		g.clearRect(0, 0, W, H);
		const left = 44;
		const bottom = H - 18;
		const right = W - 6;
		const top = 6;
		let lo = Infinity;
		let hi = -Infinity;
		for (const s of this.series.values()) {
			for (const v of s.v) {
				lo = Math.min(lo, v);
				hi = Math.max(hi, v);
			}
		}
		if (!Number.isFinite(lo)) {
			lo = -1;
			hi = 1;
		}
		if (hi - lo < 1e-3) {
			lo -= 0.05;
			hi += 0.05;
		}
		const pad = (hi - lo) * 0.08;
		lo -= pad;
		hi += pad;
		const t1 = this.latestTime;
		const t0 = t1 - WINDOW_S;
		const x = (t) => left + ((t - t0) / WINDOW_S) * (right - left);
		const y = (v) => bottom - ((v - lo) / (hi - lo)) * (bottom - top);
		// Axes and labels.
		g.strokeStyle = '#3a4252';
		g.lineWidth = 1;
		g.fillStyle = '#9aa5b8';
		g.font = '11px system-ui, sans-serif';
		g.beginPath();
		for (let i = 0; i <= 4; ++i) {
			const v = lo + ((hi - lo) * i) / 4;
			g.moveTo(left, y(v));
			g.lineTo(right, y(v));
			g.fillText(v.toFixed(2), 2, y(v) + 4);
		}
		g.stroke();
		g.fillText(`${t0.toFixed(1)} s`, left, H - 4);
		g.fillText(`${t1.toFixed(1)} s`, right - 40, H - 4);
		for (const s of this.series.values()) {
			g.strokeStyle = s.colour;
			g.lineWidth = 1.6;
			g.beginPath();
			s.t.forEach((t, i) => (i === 0 ? g.moveTo(x(t), y(s.v[i])) : g.lineTo(x(t), y(s.v[i]))));
			g.stroke();
		}
	}
}
