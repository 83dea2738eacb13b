// The joint table: one row per joint coordinate (an articulation dof, or a moving axis of a maximal
// joint) with its position, velocity, drive target and applied effort, a slider that sets the target of
// a driven dof, and a box that adds the coordinate to the plot. Rows are rebuilt when the world's set of
// joints changes and only their numbers are rewritten otherwise. Rows are grouped under a header row per
// robot (articulation, named after its URDF robot), then the joints between bodies.
import { shortId } from './protocol.js';

const TABLE_INTERVAL_MS = 100; // numbers are rewritten at most 10 times a second
const JOINTS_GROUP = { key: 'joints', label: 'joints between bodies' };
const COLUMNS = 6;

function fmt(v, digits = 3) {
	return v === undefined || v === null || Number.isNaN(v) ? '–' : Number(v).toFixed(digits);
}


export class JointTable {
	// onTarget(row, value): the user moved a row's slider. onPlot(row, on): the plot box changed.
	constructor(tbody, { onTarget, onPlot }) {
		this.tbody = tbody;
		this.onTarget = onTarget;
		this.onPlot = onPlot;
		this.rows = new Map(); // key -> row
		this.signature = '';
		this.description = null;
		this.lastWrite = 0;
		this.latest = null;
		this.targets = new Map(); // key -> target set from here (rad or m)
		this.controllable = false;
	}

	clear() {
		this.rows.clear();
		this.signature = '';
		this.latest = null;
		this.targets.clear();
		this.tbody.replaceChildren();
	}

	setDescription(description) {
		this.description = description;
		this.signature = '';
	}

	setControllable(on) {
		this.controllable = on;
		for (const r of this.rows.values()) {
			if (r.slider) {
				r.slider.disabled = !on;
			}
		}
	}

	// Rows of a frame: [{ key, label, kind: 'dof'|'axis', articulationId, dof, driven, lower, upper, unit }].
	describeRows(frame) {
		const rows = [];
		const d = this.description;
		for (const a of frame.articulations) {
			const da = d?.articulationsById?.get(a.id);
			const dofNames = da?.dofs ?? [];
			const group = { key: `a:${a.id}`, label: da?.robot ? `${da.robot} · articulation ${shortId(a.id)}` : `articulation ${shortId(a.id)}` };
			for (let i = 0; i < a.position.length; ++i) {
				const info = dofNames[i];
				rows.push({
					key: `a:${a.id}:${i}`,
					label: info?.name ?? `articulation ${shortId(a.id)} · dof ${i}`,
					note: info?.mimicOf ? 'mimic' : '',
					title: info ? `${info.name}: ${info.unit === 'm' ? 'prismatic, m' : 'revolute, rad'}${info.mimicOf ? `; follows ${info.mimicOf} (a mimic joint)` : ''}${info.driven ? `; drive target in [${info.lower}, ${info.upper}]` : ''}` : '',
					kind: 'dof',
					group,
					articulationId: a.id,
					dof: i,
					driven: info ? info.driven : true,
					lower: info?.lower ?? -Math.PI,
					upper: info?.upper ?? Math.PI,
					unit: info?.unit ?? '',
				});
			}
		}
		for (const j of frame.joints) {
			for (let k = 0; k < j.position.length; ++k) {
				const name = d?.jointsById?.get(j.id)?.name;
				rows.push({
					key: `j:${j.id}:${k}`,
					label: `${name ?? `joint ${shortId(j.id)}`}${j.position.length > 1 ? ` · axis ${k}` : ''}`,
					kind: 'axis',
					group: JOINTS_GROUP,
					jointId: j.id,
					axis: k,
					driven: false,
				});
			}
		}
		return rows;
	}

	build(rows) {
		this.rows.clear();
		const trs = [];
		let group = null;
		for (const row of rows) {
			if (row.group && row.group.key !== group) {
				group = row.group.key;
				const tr = document.createElement('tr');
				tr.className = 'group';
				tr.dataset.group = group;
				tr.dataset.testid = 'joint-group';
				const th = document.createElement('th');
				th.colSpan = COLUMNS;
				th.scope = 'rowgroup';
				th.textContent = row.group.label;
				tr.appendChild(th);
				trs.push(tr);
			}
			trs.push(this.buildRow(row));
		}
		this.tbody.replaceChildren(...trs);
	}

	// One row's <tr>, registered in this.rows.
	buildRow(row) {
		const tr = document.createElement('tr');
		tr.dataset.key = row.key;
		tr.dataset.testid = 'joint-row';
		const cells = {};
		const name = document.createElement('td');
		name.className = 'name';
		name.title = row.title ?? '';
		const plotBox = document.createElement('input');
		plotBox.type = 'checkbox';
		plotBox.title = 'plot this joint';
		plotBox.dataset.testid = 'plot-toggle';
		plotBox.addEventListener('change', () => this.onPlot(row, plotBox.checked));
		name.append(plotBox, document.createTextNode(` ${row.label}`));
		if (row.note) {
			const note = document.createElement('span');
			note.className = 'note';
			note.textContent = ` ${row.note}`;
			name.appendChild(note);
		}
		tr.appendChild(name);
		for (const f of ['position', 'velocity', 'target', 'effort']) {
			const td = document.createElement('td');
			td.className = `num ${f}`;
			td.dataset.field = f;
			td.textContent = '–';
			cells[f] = td;
			tr.appendChild(td);
		}
		const sliderCell = document.createElement('td');
		let slider = null;
		if (row.driven) {
			slider = document.createElement('input');
			slider.type = 'range';
			slider.min = String(row.lower);
			slider.max = String(row.upper);
			slider.step = 'any';
			slider.value = String(Math.min(row.upper, Math.max(row.lower, 0)));
			slider.disabled = !this.controllable;
			slider.dataset.testid = 'target-slider';
			slider.setAttribute('aria-label', `target of ${row.label}`);
			slider.addEventListener('input', () => {
				const v = Number(slider.value);
				this.targets.set(row.key, v);
				cells.target.textContent = fmt(v);
				this.onTarget(row, v);
			});
			slider.addEventListener('pointerdown', () => (slider.dragging = true));
			slider.addEventListener('pointerup', () => (slider.dragging = false));
			sliderCell.appendChild(slider);
		}
		tr.appendChild(sliderCell);
		this.rows.set(row.key, { ...row, cells, slider, plotBox });
		return tr;
	}

	// Values of a row in a frame: { position, velocity, effort, target }.
	values(frame, row) {
		if (row.kind === 'dof') {
			const a = frame.articulations.find((x) => x.id === row.articulationId);
			if (!a) {
				return {};
			}
			return {
				position: a.position[row.dof],
				velocity: a.velocity[row.dof],
				effort: a.effort[row.dof],
				target: a.targetPosition?.[row.dof],
			};
		}
		const j = frame.joints.find((x) => x.id === row.jointId);
		return j ? { position: j.position[row.axis], velocity: j.velocity[row.axis] } : {};
	}

	// A new frame: rebuild the rows if the joints changed, rewrite the numbers at most every 100 ms.
	update(frame, force = false) {
		this.latest = frame;
		const rows = this.describeRows(frame);
		const signature = rows.map((r) => `${r.key}=${r.label}@${r.group?.label ?? ''}`).join('|');
		if (signature !== this.signature) {
			this.signature = signature;
			this.build(rows);
			force = true;
		}
		const now = performance.now();
		if (!force && now - this.lastWrite < TABLE_INTERVAL_MS) {
			return;
		}
		this.lastWrite = now;
		for (const row of this.rows.values()) {
			const v = this.values(frame, row);
			row.cells.position.textContent = fmt(v.position);
			row.cells.velocity.textContent = fmt(v.velocity);
			row.cells.effort.textContent = fmt(v.effort, 2);
			const target = v.target ?? this.targets.get(row.key);
			row.cells.target.textContent = row.driven ? fmt(target) : '';
			if (row.slider && !row.slider.dragging && target !== undefined && document.activeElement !== row.slider) {
				row.slider.value = String(target);
			}
		}
	}

	// The plotted value of a row key in the latest frame.
	valueOf(frame, key) {
		const row = this.rows.get(key);
		return row ? this.values(frame, row).position : undefined;
	}
}
