// What a world is made of, from DescribeWorld: for each articulation, its links' visuals (drawn by the 3D
// view at the streamed link poses) and its dofs' names, units, limits, and whether a drive moves them
// (the joint table names its rows and gives driven dofs a slider over their limits).
//
// Result: { articulationsById: Map(id -> { robot, links: [{ name, visuals }], dofs: [dof] }) } where a
// visual is { geometry: 'box'|'cylinder'|'sphere'|'mesh', size, radius, length, scale, mesh, rgba, origin }
// in its articulation link's frame, and a dof is { name, unit, driven, lower, upper, mimicOf }.
import { LinkJointType, GeometryType } from './protocol.js';

const GEOMETRIES = {
	[GeometryType.GEOMETRY_BOX]: 'box',
	[GeometryType.GEOMETRY_CYLINDER]: 'cylinder',
	[GeometryType.GEOMETRY_SPHERE]: 'sphere',
	[GeometryType.GEOMETRY_MESH]: 'mesh',
};
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
	return { articulationsById, name: description.name };
}

function articulation(a) {
	const urdf = a.urdf && a.urdf.articulationId !== '0' ? a.urdf : null;
	const links = a.links.map((_, i) => ({ name: `link ${i}`, visuals: [] }));
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
