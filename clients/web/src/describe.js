// What a world is made of, from DescribeWorld: for each articulation, its links' visuals (drawn by the 3D
// view at the streamed link poses) and its dofs' names, units, limits, and whether a drive moves them
// (the joint table names its rows and gives driven dofs a slider over their limits).
//
// Result: { articulationsById: Map(id -> { robot, links: [{ name, joint, visuals }], dofs: [dof] }),
// shapesByKey: Map(key -> [shape]), worldShapes: [shape] } where a visual is { geometry: 'box'|'cylinder'|
// 'sphere'|'mesh', size, radius, length, scale, mesh, meshHash, hasColor, rgba, origin } in its articulation
// link's frame, a link's joint is its inbound joint { name, type }, a dof is { name, unit, driven, lower,
// upper, mimicOf }, and a shape is { id, type: 'sphere'|'capsule'|'box'|'cylinder'|'hull'|'mesh'|'plane',
// pose, radius, halfLength, halfExtents, normal, offset, hull, meshHash, sensor } in the frame of what it
// is on. Shapes are keyed as the 3D view keys what moves: `b:BODY` for a body's, `a:ARTICULATION:LINK` for
// a link's; the world's own shapes (a ground plane) are in world coordinates.
import { LinkJointType, GeometryType, ShapeType } from './protocol.js';

const GEOMETRIES = {
	[GeometryType.GEOMETRY_BOX]: 'box',
	[GeometryType.GEOMETRY_CYLINDER]: 'cylinder',
	[GeometryType.GEOMETRY_SPHERE]: 'sphere',
	[GeometryType.GEOMETRY_MESH]: 'mesh',
};
const SHAPES = {
	[ShapeType.SHAPE_SPHERE]: 'sphere',
	[ShapeType.SHAPE_CAPSULE]: 'capsule',
	[ShapeType.SHAPE_BOX]: 'box',
	[ShapeType.SHAPE_CYLINDER]: 'cylinder',
	[ShapeType.SHAPE_HULL]: 'hull',
	[ShapeType.SHAPE_MESH]: 'mesh',
	[ShapeType.SHAPE_PLANE]: 'plane',
};
const JOINT_TYPES = {
	[LinkJointType.LINK_FIXED]: 'fixed',
	[LinkJointType.LINK_REVOLUTE]: 'revolute',
	[LinkJointType.LINK_PRISMATIC]: 'prismatic',
	[LinkJointType.LINK_SPHERICAL]: 'spherical',
};
const HASH_BYTES = 32; // SHA-256

// The 64 lower-case hexadecimal digits of a MeshRef's hash (the name of /assets/HEX), or null when there
// is no mesh to fetch.
export function meshHex(ref) {
	const bytes = ref?.hash;
	if (!bytes || bytes.length !== HASH_BYTES) {
		return null;
	}
	return Array.from(bytes, (b) => (b & 0xff).toString(16).padStart(2, '0')).join('');
}

// Slider ranges for dofs without enabled limits: a turn either way, or a metre.
const FREE_ANGLE = Math.PI;
const FREE_LENGTH = 1;

export async function describeWorld(conn, worldId) {
	const reply = await conn.request('describeWorld', { worldId });
	return fromDescription(reply.description);
}

export function fromDescription(description) {
	const articulationsById = new Map();
	for (const a of description.articulations) {
		articulationsById.set(a.id, articulation(a));
	}
	const shapesByKey = new Map();
	const worldShapes = [];
	for (const s of description.shapes ?? []) {
		const shape = shapeOf(s);
		if (!shape) {
			continue;
		}
		let key = null;
		if (s.bodyId && s.bodyId !== '0') {
			key = `b:${s.bodyId}`;
		} else if (s.articulationId && s.articulationId !== '0') {
			key = `a:${s.articulationId}:${s.link}`;
		}
		if (key === null) {
			worldShapes.push(shape);
		} else {
			if (!shapesByKey.has(key)) {
				shapesByKey.set(key, []);
			}
			shapesByKey.get(key).push(shape);
		}
	}
	return { articulationsById, shapesByKey, worldShapes, name: description.name };
}

function shapeOf(s) {
	const type = SHAPES[s.type];
	if (!type) {
		return null;
	}
	return {
		id: s.id,
		type,
		pose: s.localPose,
		radius: s.radius,
		halfLength: s.halfLength,
		halfExtents: s.halfExtents,
		normal: s.normal,
		offset: s.offset,
		hull: s.hullVertices ?? [],
		meshHash: meshHex(s.mesh),
		sensor: Boolean(s.sensor),
	};
}

function articulation(a) {
	const urdf = a.urdf && a.urdf.articulationId !== '0' ? a.urdf : null;
	const links = a.links.map((l, i) => ({
		name: `link ${i}`,
		joint: i === 0 ? null : { name: `joint of link ${i}`, type: JOINT_TYPES[l.jointType] ?? 'joint' },
		visuals: [],
	}));
	// Names: an articulation link is named after the first URDF link that went into it.
	if (urdf) {
		for (const l of urdf.links) {
			if (l.link >= 0 && l.link < links.length && links[l.link].name === `link ${l.link}`) {
				links[l.link].name = l.name;
			}
		}
		for (const v of urdf.visuals) {
			if (v.link < 0 || v.link >= links.length || !GEOMETRIES[v.geometry]) {
				continue; // a visual of a world link (above a floating base) or of no known geometry
			}
			links[v.link].visuals.push({
				geometry: GEOMETRIES[v.geometry],
				size: v.size,
				radius: v.radius,
				length: v.length,
				scale: v.scale,
				mesh: v.mesh,
				meshHash: meshHex(v.meshRef),
				hasColor: Boolean(v.hasColor),
				rgba: v.rgba,
				origin: v.pose,
			});
		}
	}
	// Dofs in order, from the core's links; joint names and mimic couplings from the URDF.
	const jointOfDof = new Map();
	for (const j of urdf?.joints ?? []) {
		if (j.dof >= 0) {
			jointOfDof.set(j.dof, j);
		}
		if (j.link > 0 && j.link < links.length) {
			links[j.link].joint = { name: j.name, type: j.type || links[j.link].joint.type };
		}
	}
	const dofs = [];
	a.links.forEach((link, li) => {
		const angular = link.jointType !== LinkJointType.LINK_PRISMATIC;
		for (let k = 0; k < link.dofCount; ++k) {
			const dof = link.firstDof + k;
			const joint = jointOfDof.get(dof);
			const limit = link.limits[k];
			const drive = link.drives[k];
			const free = angular ? FREE_ANGLE : FREE_LENGTH;
			let name = joint?.name ?? `${links[li].name}`;
			if (link.dofCount > 1) {
				name += ` · ${'xyz'[k]}`;
			}
			dofs[dof] = {
				name,
				unit: angular ? 'rad' : 'm',
				driven: Boolean(drive?.enabled),
				lower: limit?.enabled ? limit.lower : -free,
				upper: limit?.enabled ? limit.upper : free,
				mimicOf: joint?.mimicOf || '',
			};
		}
	});
	return { id: a.id, robot: urdf?.robotName ?? '', fixedBase: a.fixedBase, links, dofs };
}
