// A parsed model into a world: one articulation (links in the model's tree order) and one mimic row per
// URDF <mimic>. The plan is made first without touching the world (snm_build_check runs only the plan);
// the world changes only when the plan is whole.
//
// Frames. URDF puts a joint frame at <origin> in the parent link; at q = 0 the child link frame is that
// joint frame; the axis is given in the joint frame. The core's joint turns or slides along its joint
// frame's x axis, and takes the joint frame on both sides. With R the rotation that turns x onto the URDF
// axis (snm_axis_rotation):
//   parent_frame = offset(parent) * origin * R      (offset: the parent model link in its articulation link)
//   child_frame  = (0, R)
// The child link frame is then parent_frame * J(q) * child_frame^-1 = offset * origin * R J(q) R^-1, and
// R Rx(q) R^-1 is the rotation by q about the URDF axis (R (q x) for a slide): q means the same angle or
// distance in both. At q = 0 the child sits at offset * origin, as in URDF.
//
// Mass. Each model link contributes its mass m_i at centre c_i with inertia I_i (about c_i, turned into
// the articulation link's axes: I = R I_urdf R^T with R the inertial frame's rotation composed with the
// link's offset). An articulation link made of several model links gets
//   m = sum m_i,  c = sum m_i c_i / m,  I = sum (I_i + m_i (|d_i|^2 E - d_i d_i^T)),  d_i = c_i - c.
// A link made of one model link copies its values untouched (no rounding), so an imported model and the
// same model written through the C API step bit for bit alike.
//
// Massless links. A link joined by a fixed joint is merged into its parent's articulation link when it
// has no mass, or when that articulation link has none yet (a massless "base_link" above a massive one);
// merging a massless link adds nothing, merging a massive one into a massless holder moves its mass there
// unchanged. An articulation link still without mass is: the fixed base (given 1 kg and a 0.1 m sphere's
// inertia; it never moves, so they do nothing), or an error, or (with massless_link_mass > 0) given that
// mass at its frame origin.
//
// Floating base. A massless root whose only joint is floating is the world: the floating joint's child
// becomes the base (link 0), placed at base_pose * origin. Floating joints elsewhere cannot be part of an
// articulation and are errors; so are planar joints (the articulation has no planar joint type, and
// emulating one with two slides and a hinge needs massless links that the core does not allow).
#include "model_internal.h"

#include "sinew/shape.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

snm_build_def snm_default_build_def(void)
{
	snm_build_def def;
	memset(&def, 0, sizeof(def));
	def.articulation = sn_default_articulation_def();
	def.base_mode = SNM_BASE_AUTO;
	def.drive_all.drive = sn_default_drive();
	def.drive_all.drive.enabled = false;
	def.drive_all.max_force_from_effort = true;
	sn_mimic_def mimic = sn_default_mimic_def();
	def.mimic_erp = mimic.erp;
	def.mimic_soft = mimic.soft;
	def.mimic_max_force = mimic.max_force;
	def.use_limits = true;
	def.velocity_limits = SNM_VELOCITY_LIMITS_DRIVE;
	def.use_dynamics = true;
	def.massless_link_mass = 0.0;
	def.balance_inertia = false;
	def.merge_fixed_links = true;
	def.collision_shapes = true;
	def.max_world_mesh_triangles = INT64_MAX;
	def.collision_material = sn_default_material();
	def.collision_filter = sn_default_filter();
	return def;
}

const char* snm_velocity_limits_name(snm_velocity_limits mode)
{
	switch (mode)
	{
		case SNM_VELOCITY_LIMITS_DRIVE:
			return "drive";
		case SNM_VELOCITY_LIMITS_JOINT:
			return "joint";
		case SNM_VELOCITY_LIMITS_NONE:
			return "none";
	}
	return "unknown";
}

// Everything a build decides before the world is touched.
typedef struct plan
{
	int link_count;  // model links
	int joint_count; // model joints
	int art_count;   // articulation links
	int* link_index; // model link -> articulation link (-1: the world above a floating base)
	sn_transform* link_offset;
	int* art_model_link; // articulation link -> model link whose frame it is
	int* contributors;   // articulation link -> number of model links with mass in it
	double* art_mass;    // articulation link -> summed mass so far, kg
	sn_link_def* links;  // articulation link defs
	int* joint_link;
	int* joint_dof;
	int* joint_dof_count;
	int* art_dof;    // articulation link -> its first dof
	double* initial; // per model joint: initial position (1-dof joints)
	int floating_joint;
	bool fixed_base;
	sn_transform base_pose;
	int dof_count;
	snm_warning* warnings;
	int warning_count, warnings_dropped;
} plan;

static void plan_free(plan* p)
{
	free(p->link_index);
	free(p->link_offset);
	free(p->art_model_link);
	free(p->contributors);
	free(p->art_mass);
	free(p->links);
	free(p->joint_link);
	free(p->joint_dof);
	free(p->joint_dof_count);
	free(p->initial);
	free(p->art_dof);
	free(p->warnings);
	memset(p, 0, sizeof(*p));
}

static bool link_has_mass(const snm_link* l)
{
	return l->has_inertial && l->mass > 0.0;
}

static bool is_identity(sn_transform t)
{
	return t.p.x == 0.0 && t.p.y == 0.0 && t.p.z == 0.0 && t.q.x == 0.0 && t.q.y == 0.0 && t.q.z == 0.0 && t.q.w == 1.0;
}

static sn_error fail_joint(const snm_model* m, const snm_joint* j, snm_error* error, sn_error code, const char* what)
{
	char element[96];
	snprintf(element, sizeof(element), "<joint name=\"%.60s\">", j->name);
	return model_fail(error, code, m->file, j->line, 0, element, "%s", what);
}

static sn_error fail_link(const snm_model* m, const snm_link* l, snm_error* error, sn_error code, const char* what)
{
	char element[96];
	snprintf(element, sizeof(element), "<link name=\"%.60s\">", l->name);
	return model_fail(error, code, m->file, l->line, 0, element, "%s", what);
}

// The speed limit of a joint from its URDF <limit velocity> (INFINITY when not given): a mimic follower's is
// |multiplier| times its leader's, so that it can follow the leader at the leader's full speed.
static double joint_speed_limit(const snm_model* m, const snm_joint* j)
{
	if (j->mimic >= 0)
	{
		const snm_joint* leader = &m->joints[j->mimic];
		return leader->has_limit && leader->velocity > 0.0 && j->multiplier != 0.0
			? fabs(j->multiplier) * leader->velocity
			: INFINITY;
	}
	return j->has_limit && j->velocity > 0.0 ? j->velocity : INFINITY;
}

// Start a new articulation link for model link `link`.
static int add_art_link(plan* p, int link, int parent_art)
{
	int a = p->art_count++;
	p->links[a] = sn_default_link_def();
	p->links[a].parent = parent_art;
	p->links[a].user_data = (uint64_t)link;
	p->art_model_link[a] = link;
	p->link_index[link] = a;
	p->link_offset[link] = sn_transform_identity();
	return a;
}

// The inbound joint of articulation link a, from URDF joint j.
static sn_error set_joint(const snm_model* m, const snm_joint* j, const snm_build_def* def, plan* p, int a,
						  snm_error* error)
{
	sn_link_def* ld = &p->links[a];
	const sn_transform parent_offset = p->link_offset[j->parent];
	switch (j->type)
	{
		case SNM_JOINT_FIXED:
			ld->joint_type = SN_LINK_JOINT_FIXED;
			break;
		case SNM_JOINT_REVOLUTE:
		case SNM_JOINT_CONTINUOUS:
			ld->joint_type = SN_LINK_JOINT_REVOLUTE;
			break;
		case SNM_JOINT_PRISMATIC:
			ld->joint_type = SN_LINK_JOINT_PRISMATIC;
			break;
		case SNM_JOINT_FLOATING:
			return fail_joint(m, j, error, SN_ERR_UNSUPPORTED,
							  "a floating joint is supported only as the base: from a massless root link (the world) "
							  "that has no other joint");
		case SNM_JOINT_PLANAR:
			return fail_joint(m, j, error, SN_ERR_UNSUPPORTED,
							  "planar joints are not supported: the articulation has no planar joint; model it as two "
							  "prismatic joints and a revolute joint with small-mass links between them");
	}
	sn_transform axis_frame = { sn_v3(0.0, 0.0, 0.0), snm_axis_rotation(j->axis) };
	if (j->type == SNM_JOINT_FIXED)
	{
		axis_frame.q = sn_quat_identity();
	}
	sn_transform joint_in_parent = is_identity(parent_offset) ? j->origin : sn_transform_mul(parent_offset, j->origin);
	ld->parent_frame = is_identity(axis_frame) ? joint_in_parent : sn_transform_mul(joint_in_parent, axis_frame);
	ld->child_frame = axis_frame;
	if (j->type == SNM_JOINT_FIXED)
	{
		return SN_ERR_OK;
	}
	if (def->use_limits && j->type != SNM_JOINT_CONTINUOUS)
	{
		ld->limit[0].enabled = true;
		ld->limit[0].lower = j->lower;
		ld->limit[0].upper = j->upper;
		ld->limit[0].soft = sn_soft_rigid();
	}
	if (def->velocity_limits == SNM_VELOCITY_LIMITS_JOINT)
	{
		ld->max_joint_velocity = joint_speed_limit(m, j);
	}
	if (def->use_dynamics)
	{
		ld->joint_damping = j->damping;
		ld->joint_friction = j->friction;
	}
	return SN_ERR_OK;
}

// Mass, centre and inertia of each articulation link from its model links (see the top of the file).
static void combine_masses(const snm_model* m, plan* p)
{
	for (int a = 0; a < p->art_count; ++a)
	{
		p->links[a].mass = 0.0;
		p->links[a].inertia = sn_mat33_zero();
		p->links[a].center_of_mass = sn_v3(0.0, 0.0, 0.0);
	}
	// Pass 1: masses and centres (a single contributor is copied exactly).
	for (int i = 0; i < m->link_count; ++i)
	{
		const snm_link* l = &m->links[i];
		int a = p->link_index[i];
		if (a < 0 || !link_has_mass(l))
		{
			continue;
		}
		sn_link_def* ld = &p->links[a];
		sn_transform offset = p->link_offset[i];
		sn_vec3 c = is_identity(offset) ? l->inertial_frame.p : sn_transform_point(offset, l->inertial_frame.p);
		if (p->contributors[a] == 1)
		{
			ld->mass = l->mass;
			ld->center_of_mass = c;
		}
		else
		{
			ld->mass += l->mass;
			ld->center_of_mass = sn_mul_add(ld->center_of_mass, l->mass, c);
		}
	}
	for (int a = 0; a < p->art_count; ++a)
	{
		if (p->contributors[a] > 1)
		{
			p->links[a].center_of_mass = sn_scale(1.0 / p->links[a].mass, p->links[a].center_of_mass);
		}
	}
	// Pass 2: inertia about the combined centre, in articulation link axes.
	for (int i = 0; i < m->link_count; ++i)
	{
		const snm_link* l = &m->links[i];
		int a = p->link_index[i];
		if (a < 0 || !link_has_mass(l))
		{
			continue;
		}
		sn_link_def* ld = &p->links[a];
		sn_transform offset = p->link_offset[i];
		sn_quat r = sn_quat_mul(offset.q, l->inertial_frame.q);
		bool turned = !(r.x == 0.0 && r.y == 0.0 && r.z == 0.0 && r.w == 1.0);
		sn_mat33 inertia = turned ? sn_mat33_rotate_tensor(r, l->inertia) : l->inertia;
		if (p->contributors[a] == 1)
		{
			ld->inertia = inertia;
			continue;
		}
		sn_vec3 c = sn_transform_point(offset, l->inertial_frame.p);
		sn_vec3 d = sn_sub(c, ld->center_of_mass);
		double dd = sn_dot(d, d);
		// Parallel axis: m (|d|^2 E - d d^T), added column by column.
		sn_mat33 shift = { sn_v3(dd - d.x * d.x, -d.y * d.x, -d.z * d.x), sn_v3(-d.x * d.y, dd - d.y * d.y, -d.z * d.y),
						   sn_v3(-d.x * d.z, -d.y * d.z, dd - d.z * d.z) };
		ld->inertia.cx = sn_add(ld->inertia.cx, sn_add(inertia.cx, sn_scale(l->mass, shift.cx)));
		ld->inertia.cy = sn_add(ld->inertia.cy, sn_add(inertia.cy, sn_scale(l->mass, shift.cy)));
		ld->inertia.cz = sn_add(ld->inertia.cz, sn_add(inertia.cz, sn_scale(l->mass, shift.cz)));
	}
}

static sn_error check_drive_gains(const snm_model* m, const snm_drive_gains* g, const char* what, snm_error* error)
{
	const sn_drive* d = &g->drive;
	if (!(d->stiffness >= 0.0) || !(d->damping >= 0.0) || !isfinite(d->stiffness) || !isfinite(d->damping) ||
		!isfinite(d->target_position) || !isfinite(d->target_velocity) ||
		(!g->max_force_from_effort && !(d->max_force >= 0.0)) || !(d->max_velocity > 0.0) ||
		(d->type != SN_DRIVE_FORCE && d->type != SN_DRIVE_ACCELERATION))
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, m->file, 0, 0, "",
						  "%s: drive gains must be finite and >= 0, max velocity > 0 (stiffness %.17g, damping %.17g, "
						  "max force %.17g, max velocity %.17g)",
						  what, d->stiffness, d->damping, d->max_force, d->max_velocity);
	}
	return SN_ERR_OK;
}

static sn_error check_def(const snm_model* m, const snm_build_def* def, snm_error* error)
{
	if (def->base_mode != SNM_BASE_AUTO && def->base_mode != SNM_BASE_FIXED && def->base_mode != SNM_BASE_FLOATING)
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, m->file, 0, 0, "", "base_mode %d is not a mode",
						  (int)def->base_mode);
	}
	if (def->velocity_limits != SNM_VELOCITY_LIMITS_DRIVE && def->velocity_limits != SNM_VELOCITY_LIMITS_JOINT &&
		def->velocity_limits != SNM_VELOCITY_LIMITS_NONE)
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, m->file, 0, 0, "", "velocity_limits %d is not a mode",
						  (int)def->velocity_limits);
	}
	// The mimic rows' settings are checked here, before the articulation exists, so that the core never
	// rejects a mimic row after the articulation was created.
	const sn_soft* soft = &def->mimic_soft;
	bool soft_ok =
		(soft->kind == SN_SOFT_RIGID || soft->kind == SN_SOFT_STIFFNESS || soft->kind == SN_SOFT_FREQUENCY) &&
		soft->stiffness >= 0.0 && soft->damping >= 0.0 && soft->frequency >= 0.0 && soft->damping_ratio >= 0.0 &&
		isfinite(soft->stiffness) && isfinite(soft->damping) && isfinite(soft->frequency) &&
		isfinite(soft->damping_ratio);
	if (!(def->mimic_erp >= 0.0 && def->mimic_erp <= 1.0) || !(def->mimic_max_force >= 0.0) || !soft_ok ||
		!(def->massless_link_mass >= 0.0) || !isfinite(def->massless_link_mass))
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, m->file, 0, 0, "",
						  "mimic_erp must be in [0, 1], mimic_soft finite and >= 0, mimic_max_force and "
						  "massless_link_mass >= 0");
	}
	if (def->drive_count < 0 || (def->drive_count > 0 && def->drives == NULL) || def->initial_count < 0 ||
		(def->initial_count > 0 && def->initial == NULL))
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, m->file, 0, 0, "", "drive or initial arrays are missing");
	}
	sn_error err = def->drive_all.drive.enabled ? check_drive_gains(m, &def->drive_all, "drive_all", error) : SN_ERR_OK;
	for (int i = 0; err == SN_ERR_OK && i < def->drive_count; ++i)
	{
		const char* name = def->drives[i].joint;
		int j = snm_model_find_joint(m, name);
		if (j < 0 || snm_joint_dof_count(m->joints[j].type) != 1)
		{
			return model_fail(error, j < 0 ? SN_ERR_INVALID_ARGUMENT : SN_ERR_WRONG_TYPE, m->file, 0, 0, "",
							  "drive for joint \"%.60s\": %s", name != NULL ? name : "(null)",
							  j < 0 ? "no joint has that name"
									: "only revolute, continuous and prismatic joints have drives");
		}
		err = check_drive_gains(m, &def->drives[i], name, error);
	}
	for (int i = 0; err == SN_ERR_OK && i < def->initial_count; ++i)
	{
		const char* name = def->initial[i].joint;
		int j = snm_model_find_joint(m, name);
		if (j < 0 || snm_joint_dof_count(m->joints[j].type) != 1 || !isfinite(def->initial[i].value))
		{
			return model_fail(error, SN_ERR_INVALID_ARGUMENT, m->file, 0, 0, "",
							  "initial position of joint \"%.60s\": %s", name != NULL ? name : "(null)",
							  j < 0
								  ? "no joint has that name"
								  : (snm_joint_dof_count(m->joints[j].type) != 1 ? "the joint has no single coordinate"
																				 : "the value must be finite"));
		}
	}
	return err;
}

// The root: which model link is articulation link 0, and whether it floats.
static sn_error plan_base(const snm_model* m, const snm_build_def* def, plan* p, snm_error* error)
{
	const snm_link* root = &m->links[m->root];
	int floating = -1, others = 0;
	for (int j = 0; j < m->joint_count; ++j)
	{
		if (m->joints[j].parent != m->root)
		{
			continue;
		}
		if (m->joints[j].type == SNM_JOINT_FLOATING && floating < 0)
		{
			floating = j;
		}
		else
		{
			++others;
		}
	}
	if (floating >= 0 && (link_has_mass(root) || others > 0 || root->visual_count > 0))
	{
		return fail_joint(m, &m->joints[floating], error, SN_ERR_UNSUPPORTED,
						  "a floating joint is supported only as the base: from a massless root link without visuals "
						  "(the world) that has no other joint");
	}
	p->floating_joint = floating;
	p->base_pose = def->articulation.base_pose;
	if (floating >= 0)
	{
		p->fixed_base = def->base_mode == SNM_BASE_FIXED;
		p->link_index[m->root] = -1;
		p->link_offset[m->root] = sn_transform_identity();
		p->base_pose = sn_transform_mul(def->articulation.base_pose, m->joints[floating].origin);
	}
	else
	{
		p->fixed_base = def->base_mode != SNM_BASE_FLOATING;
	}
	return SN_ERR_OK;
}

// The one model link with mass in articulation link a, or -1 if several (or none) contribute.
static int sole_contributor(const snm_model* m, const plan* p, int a)
{
	if (p->contributors[a] != 1)
	{
		return -1;
	}
	for (int i = 0; i < m->link_count; ++i)
	{
		if (p->link_index[i] == a && link_has_mass(&m->links[i]))
		{
			return i;
		}
	}
	return -1;
}

static void plan_warn(const snm_model* m, plan* p, const snm_link* l, int line, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;

static void plan_warn(const snm_model* m, plan* p, const snm_link* l, int line, const char* format, ...)
{
	char element[96], message[256];
	snprintf(element, sizeof(element), "<link name=\"%.60s\">", l->name);
	va_list args;
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	model_warn(&p->warnings, &p->warning_count, &p->warnings_dropped, m->file, line > 0 ? line : l->line, element, "%s",
			   message);
}

// Mass and inertia of every articulation link, once the model links are merged (snm_build_def: a link
// welded to the world needs none; a moving link needs mass, a positive definite inertia, and principal
// moments that satisfy the triangle inequality, which balance_inertia may repair).
static sn_error check_link_inertias(const snm_model* m, const snm_build_def* def, plan* p, snm_error* error)
{
	for (int a = 0; a < p->art_count; ++a)
	{
		sn_link_def* ld = &p->links[a];
		const snm_link* owner = &m->links[p->art_model_link[a]];
		double moments[3] = { 0.0, 0.0, 0.0 };
		sn_mat33 axes = sn_mat33_diag(1.0, 1.0, 1.0);
		if (p->contributors[a] > 0)
		{
			model_sym_eigen(ld->inertia, moments, &axes);
		}
		// Positive definite to rounding: the smallest principal moment above 1e-12 of the largest.
		bool definite = p->contributors[a] > 0 && moments[0] > 1e-12 * moments[2];
		if (a == 0 && p->fixed_base)
		{
			if (!definite)
			{
				if (p->contributors[a] > 0)
				{
					plan_warn(m, p, owner, 0,
							  "welded to the world: its mass %.6g kg and inertia (principal moments %.6g, %.6g, %.6g "
							  "kg*m^2) are not used",
							  ld->mass, moments[0], moments[1], moments[2]);
				}
				ld->mass = 1.0;
				ld->inertia = sn_mat33_diag(0.004, 0.004, 0.004);
			}
			continue;
		}
		if (p->contributors[a] == 0)
		{
			if (!(def->massless_link_mass > 0.0))
			{
				char what[256];
				snprintf(what, sizeof(what),
						 "the link has no mass (no <inertial> or mass 0) but moves%s; give it an <inertial> or set a "
						 "substitute mass (massless_link_mass)",
						 a == 0 ? " as a floating base" : " on its own joint");
				return fail_link(m, owner, error, SN_ERR_NON_POSITIVE_MASS, what);
			}
			double i = 0.4 * def->massless_link_mass * 0.01 * 0.01;
			ld->mass = def->massless_link_mass;
			ld->inertia = sn_mat33_diag(i, i, i);
			plan_warn(m, p, owner, 0, "has no mass but moves: given massless_link_mass %.6g kg (a 0.01 m sphere)",
					  def->massless_link_mass);
			continue;
		}
		int sole = sole_contributor(m, p, a);
		const snm_link* at = sole >= 0 ? &m->links[sole] : owner;
		int line = sole >= 0 && m->links[sole].inertia_line > 0 ? m->links[sole].inertia_line : owner->line;
		char merged[64] = "";
		if (sole < 0)
		{
			snprintf(merged, sizeof(merged), " (with %d links merged into it)", p->contributors[a] - 1);
		}
		if (!definite)
		{
			char element[96];
			snprintf(element, sizeof(element), "<link name=\"%.60s\">", at->name);
			return model_fail(error, SN_ERR_INERTIA_NOT_PD, m->file, line, 0, element,
							  "the link moves but its inertia%s is singular (principal moments %.6g, %.6g, %.6g "
							  "kg*m^2); give it a positive definite <inertia>",
							  merged, moments[0], moments[1], moments[2]);
		}
		// Triangle inequality with 0.1% of slack: files round their values (a flat plate's largest moment
		// is exactly the sum of the other two).
		double excess = moments[2] - (moments[0] + moments[1]);
		if (excess > 1e-3 * (moments[0] + moments[1]))
		{
			if (!def->balance_inertia)
			{
				char element[96];
				snprintf(element, sizeof(element), "<link name=\"%.60s\">", at->name);
				return model_fail(error, SN_ERR_INERTIA_NOT_PD, m->file, line, 0, element,
								  "principal moments %.6g, %.6g, %.6g kg*m^2%s violate the triangle inequality (the "
								  "largest is %.3g%% above the sum of the others): no mass distribution has them; fix "
								  "the <inertia> or set balance_inertia",
								  moments[0], moments[1], moments[2], merged,
								  100.0 * excess / (moments[0] + moments[1]));
			}
			double d[3] = { moments[0] + 0.5 * excess, moments[1] + 0.5 * excess, moments[2] };
			// I = R diag(d) R^T with R's columns the principal axes.
			sn_mat33 rd = { sn_scale(d[0], axes.cx), sn_scale(d[1], axes.cy), sn_scale(d[2], axes.cz) };
			sn_mat33 inertia = sn_mat33_mul(rd, sn_mat33_transpose(axes));
			// Symmetric to the last bit.
			inertia.cy.x = inertia.cx.y;
			inertia.cz.x = inertia.cx.z;
			inertia.cz.y = inertia.cy.z;
			ld->inertia = inertia;
			plan_warn(m, p, at, line,
					  "inertia%s balanced (balance_inertia): principal moments %.6g, %.6g, %.6g became %.6g, %.6g, "
					  "%.6g kg*m^2",
					  merged, moments[0], moments[1], moments[2], d[0], d[1], d[2]);
		}
	}
	return SN_ERR_OK;
}

static sn_error plan_links(const snm_model* m, const snm_build_def* def, plan* p, snm_error* error)
{
	sn_error err = plan_base(m, def, p, error);
	for (int k = 0; err == SN_ERR_OK && k < m->link_count; ++k)
	{
		int link = m->link_order[k];
		const snm_link* l = &m->links[link];
		int pj = l->parent_joint;
		if (pj < 0)
		{
			if (p->floating_joint < 0)
			{
				add_art_link(p, link, -1);
			}
		}
		else if (pj == p->floating_joint)
		{
			add_art_link(p, link, -1);
		}
		else
		{
			const snm_joint* j = &m->joints[pj];
			int parent_art = p->link_index[j->parent];
			if (j->type == SNM_JOINT_FIXED &&
				(def->merge_fixed_links || !link_has_mass(l) || p->art_mass[parent_art] == 0.0))
			{
				// Merged: this link's frame is the joint origin in the parent's articulation link.
				p->link_index[link] = parent_art;
				p->link_offset[link] = is_identity(p->link_offset[j->parent])
					? j->origin
					: sn_transform_mul(p->link_offset[j->parent], j->origin);
				p->joint_link[pj] = -1;
			}
			else
			{
				int a = add_art_link(p, link, parent_art);
				p->joint_link[pj] = a;
				err = set_joint(m, j, def, p, a, error);
			}
		}
		if (err == SN_ERR_OK && p->link_index[link] >= 0 && link_has_mass(l))
		{
			p->art_mass[p->link_index[link]] += l->mass;
			p->contributors[p->link_index[link]]++;
		}
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	combine_masses(m, p);
	return check_link_inertias(m, def, p, error);
}

static const snm_drive_gains* gains_for(const snm_model* m, const snm_build_def* def, int joint)
{
	for (int i = def->drive_count - 1; i >= 0; --i)
	{
		if (strcmp(def->drives[i].joint, m->joints[joint].name) == 0)
		{
			return &def->drives[i];
		}
	}
	if (def->drive_all.drive.enabled && !m->joints[joint].has_mimic)
	{
		return &def->drive_all;
	}
	return NULL;
}

// Dof numbering, initial positions (followers from their mimic, or their leaders from them) and drives.
static sn_error plan_dofs(const snm_model* m, const snm_build_def* def, plan* p, snm_error* error)
{
	// Dofs are numbered in articulation link order; the base's own (floating) dofs are not numbered.
	int dof = 0;
	for (int a = 0; a < p->art_count; ++a)
	{
		sn_link_joint_type t = p->links[a].joint_type;
		p->art_dof[a] = dof;
		dof += a > 0 && (t == SN_LINK_JOINT_REVOLUTE || t == SN_LINK_JOINT_PRISMATIC) ? 1 : 0;
	}
	for (int j = 0; j < m->joint_count; ++j)
	{
		int a = p->joint_link[j];
		sn_link_joint_type t = a > 0 ? p->links[a].joint_type : SN_LINK_JOINT_FIXED;
		bool moves = t == SN_LINK_JOINT_REVOLUTE || t == SN_LINK_JOINT_PRISMATIC;
		p->joint_dof[j] = moves ? p->art_dof[a] : -1;
		p->joint_dof_count[j] = moves ? 1 : 0;
	}
	p->dof_count = dof;
	for (int i = 0; i < def->initial_count; ++i)
	{
		p->initial[snm_model_find_joint(m, def->initial[i].joint)] = def->initial[i].value;
	}
	// A listed follower moves its leader: q_leader = (q_follower - offset) / multiplier.
	for (int i = 0; i < def->initial_count; ++i)
	{
		int j = snm_model_find_joint(m, def->initial[i].joint);
		const snm_joint* jt = &m->joints[j];
		if (jt->mimic < 0)
		{
			continue;
		}
		const snm_joint* leader = &m->joints[jt->mimic];
		if (jt->multiplier == 0.0)
		{
			return fail_joint(
				m, jt, error, SN_ERR_INVALID_ARGUMENT,
				"an initial position for this mimic follower cannot move its leader: its multiplier is 0");
		}
		double q = (def->initial[i].value - jt->offset) / jt->multiplier;
		for (int k = 0; k < def->initial_count; ++k)
		{
			if (strcmp(def->initial[k].joint, leader->name) == 0 &&
				!(fabs(def->initial[k].value - q) <= 1e-12 * (1.0 + fabs(q))))
			{
				char what[256];
				snprintf(what, sizeof(what),
						 "initial position %.17g asks its leader \"%.40s\" for %.17g, but the leader is given %.17g",
						 def->initial[i].value, leader->name, q, def->initial[k].value);
				return fail_joint(m, jt, error, SN_ERR_INVALID_ARGUMENT, what);
			}
		}
		p->initial[jt->mimic] = q;
	}
	for (int j = 0; j < m->joint_count; ++j)
	{
		const snm_joint* jt = &m->joints[j];
		if (jt->mimic >= 0)
		{
			p->initial[j] = jt->multiplier * p->initial[jt->mimic] + jt->offset;
		}
	}
	for (int j = 0; j < m->joint_count; ++j)
	{
		int a = p->joint_link[j];
		if (a <= 0 || p->joint_dof_count[j] != 1)
		{
			continue;
		}
		sn_link_def* ld = &p->links[a];
		ld->initial_position[0] = p->initial[j];
		const snm_drive_gains* g = gains_for(m, def, j);
		if (g == NULL || !g->drive.enabled)
		{
			continue;
		}
		ld->drive[0] = g->drive;
		if (g == &def->drive_all)
		{
			ld->drive[0].target_position = p->initial[j];
		}
		if (g->max_force_from_effort)
		{
			const snm_joint* jt = &m->joints[j];
			ld->drive[0].max_force = jt->has_limit && jt->effort > 0.0 ? jt->effort : INFINITY;
		}
		if (def->velocity_limits == SNM_VELOCITY_LIMITS_DRIVE && !(g->drive.max_velocity < INFINITY))
		{
			ld->drive[0].max_velocity = joint_speed_limit(m, &m->joints[j]);
		}
	}
	return SN_ERR_OK;
}

static sn_error make_plan(const snm_model* m, const snm_build_def* def, plan* p, snm_error* error)
{
	memset(p, 0, sizeof(*p));
	sn_error err = check_def(m, def, error);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	size_t links = (size_t)m->link_count, joints = (size_t)(m->joint_count > 0 ? m->joint_count : 1);
	p->link_count = m->link_count;
	p->joint_count = m->joint_count;
	p->link_index = malloc(links * sizeof(int));
	p->link_offset = malloc(links * sizeof(sn_transform));
	p->art_model_link = malloc(links * sizeof(int));
	p->contributors = calloc(links, sizeof(int));
	p->art_mass = calloc(links, sizeof(double));
	p->links = malloc(links * sizeof(sn_link_def));
	p->joint_link = malloc(joints * sizeof(int));
	p->joint_dof = malloc(joints * sizeof(int));
	p->joint_dof_count = calloc(joints, sizeof(int));
	p->initial = calloc(joints, sizeof(double));
	p->art_dof = malloc(links * sizeof(int));
	if (p->art_dof == NULL || p->link_index == NULL || p->link_offset == NULL || p->art_model_link == NULL ||
		p->contributors == NULL || p->art_mass == NULL || p->links == NULL || p->joint_link == NULL ||
		p->joint_dof == NULL || p->joint_dof_count == NULL || p->initial == NULL)
	{
		plan_free(p);
		return model_fail(error, SN_ERR_NO_MEMORY, m->file, 0, 0, "", "out of memory planning the build");
	}
	for (int i = 0; i < m->link_count; ++i)
	{
		p->link_index[i] = -1;
		p->link_offset[i] = sn_transform_identity();
	}
	for (int j = 0; j < m->joint_count; ++j)
	{
		p->joint_link[j] = -1;
		p->joint_dof[j] = -1;
	}
	err = plan_links(m, def, p, error);
	if (err != SN_ERR_OK)
	{
		plan_free(p);
		return err;
	}
	err = plan_dofs(m, def, p, error);
	if (err != SN_ERR_OK)
	{
		plan_free(p);
	}
	return err;
}


// ---- Collision shapes ----

typedef struct shape_list
{
	sn_shape_id* ids;
	int* collision;
	int count;
	int hull_vertices;
	bool world_shapes; // some are the world's own (destroyed one by one on failure)
} shape_list;

static void destroy_world_shapes(sn_world* world, const sn_shape_id* ids, int count)
{
	for (int i = 0; i < count; ++i)
	{
		if (sn_shape_is_valid(world, ids[i]) && sn_body_id_is_null(sn_shape_get_body(world, ids[i])))
		{
			sn_destroy_shape(world, ids[i]);
		}
	}
}

// The geometry of collision c, scaled: a primitive, a hull of the mesh's vertices (moving links) or a
// triangle mesh (the world). Arrays it fills are the caller's to free. Returns false when the collision
// makes no shape (*why says why: the caller warns), or when memory ran out (*why is NULL).
static bool collision_geometry(const snm_model* m, const snm_collision* c, bool on_world, sn_geometry* g,
							   sn_vec3** points, int32_t** indices, const char** why)
{
	*points = NULL;
	*indices = NULL;
	*why = NULL;
	switch (c->type)
	{
		case SNM_GEOMETRY_NONE:
			*why = "no geometry the importer knows";
			return false;
		case SNM_GEOMETRY_BOX:
			*g = sn_geometry_box(sn_scale(0.5, c->size));
			if (!(fmin(c->size.x, fmin(c->size.y, c->size.z)) >= 2.0 * SN_SHAPE_MIN_SIZE))
			{
				*why = "a box with a zero edge";
				return false;
			}
			return true;
		case SNM_GEOMETRY_CYLINDER:
			*g = sn_geometry_cylinder(c->radius, 0.5 * c->length);
			if (!(c->radius >= SN_SHAPE_MIN_SIZE && c->length >= 2.0 * SN_SHAPE_MIN_SIZE))
			{
				*why = "a cylinder of zero radius or length";
				return false;
			}
			return true;
		case SNM_GEOMETRY_SPHERE:
			*g = sn_geometry_sphere(c->radius);
			if (!(c->radius >= SN_SHAPE_MIN_SIZE))
			{
				*why = "a sphere of zero radius";
				return false;
			}
			return true;
		case SNM_GEOMETRY_MESH:
			break;
	}
	if (c->mesh_index < 0 || c->mesh_index >= m->mesh_count)
	{
		*why = "its mesh was not read (snm_model_load_meshes)";
		return false;
	}
	const snm_mesh* mesh = m->meshes[c->mesh_index];
	sn_vec3* v = malloc((size_t)mesh->vertex_count * sizeof(sn_vec3));
	if (v == NULL)
	{
		return false;
	}
	for (int i = 0; i < mesh->vertex_count; ++i)
	{
		const float* q = &mesh->positions[3 * (size_t)i];
		v[i] = sn_v3(c->scale.x * (double)q[0], c->scale.y * (double)q[1], c->scale.z * (double)q[2]);
	}
	*points = v;
	if (!on_world)
	{
		*g = sn_geometry_hull(v, mesh->vertex_count);
		return true;
	}
	// A triangle mesh: degenerate triangles (repeated vertices, zero area after scaling) are dropped.
	int32_t* idx = malloc((size_t)mesh->triangle_count * 3 * sizeof(int32_t));
	if (idx == NULL)
	{
		return false;
	}
	int kept = 0;
	for (int t = 0; t < mesh->triangle_count; ++t)
	{
		const uint32_t* tri = &mesh->indices[3 * (size_t)t];
		sn_vec3 e1 = sn_sub(v[tri[1]], v[tri[0]]), e2 = sn_sub(v[tri[2]], v[tri[0]]);
		double area2 = sn_length(sn_cross(e1, e2));
		if (!(area2 > 0.0))
		{
			continue;
		}
		idx[3 * kept] = (int32_t)tri[0];
		idx[3 * kept + 1] = (int32_t)tri[1];
		idx[3 * kept + 2] = (int32_t)tri[2];
		kept++;
	}
	*indices = idx;
	if (kept == 0)
	{
		*why = "a mesh whose triangles are all degenerate";
		return false;
	}
	*g = sn_geometry_mesh(v, mesh->vertex_count, idx, kept);
	return true;
}

// Shapes for every <collision> of the model, on the bodies of the articulation's links (or the world).
static sn_error add_collision_shapes(sn_world* world, const snm_model* m, const snm_build_def* def, plan* p,
									 sn_articulation_id art, shape_list* list, snm_error* error)
{
	memset(list, 0, sizeof(*list));
	if (!def->collision_shapes || m->collision_count == 0)
	{
		return SN_ERR_OK;
	}
	// The world's triangle meshes, before any is made: each one costs its triangles' bounding volume hierarchy.
	int64_t world_triangles = 0;
	for (int i = 0; i < m->collision_count; ++i)
	{
		const snm_collision* c = &m->collisions[i];
		if (c->type == SNM_GEOMETRY_MESH && p->link_index[c->link] < 0 && c->mesh_index >= 0 &&
			c->mesh_index < m->mesh_count)
		{
			world_triangles += m->meshes[c->mesh_index]->triangle_count;
		}
	}
	if (world_triangles > def->max_world_mesh_triangles)
	{
		model_fail(error, SN_ERR_CAPACITY, m->file, 0, 0, "<collision>",
				   "the world's collision meshes (a massless root above a floating base) have %lld triangles "
				   "together, more than the build allows (%lld)",
				   (long long)world_triangles, (long long)def->max_world_mesh_triangles);
		error->asset = SNM_ASSET_TOO_MANY_TRIANGLES; // which bound: the caller's, not the core's
		return SN_ERR_CAPACITY;
	}
	list->ids = malloc((size_t)m->collision_count * sizeof(sn_shape_id));
	list->collision = malloc((size_t)m->collision_count * sizeof(int));
	if (list->ids == NULL || list->collision == NULL)
	{
		return model_fail(error, SN_ERR_NO_MEMORY, m->file, 0, 0, "", "out of memory making shapes");
	}
	for (int i = 0; i < m->collision_count; ++i)
	{
		const snm_collision* c = &m->collisions[i];
		const snm_link* l = &m->links[c->link];
		int a = p->link_index[c->link];
		bool on_world = a < 0;
		sn_geometry g;
		sn_vec3* points = NULL;
		int32_t* indices = NULL;
		const char* why = NULL;
		if (!collision_geometry(m, c, on_world, &g, &points, &indices, &why))
		{
			free(points);
			free(indices);
			if (why == NULL)
			{
				return model_fail(error, SN_ERR_NO_MEMORY, m->file, c->line, 0, "<collision>", "out of memory");
			}
			plan_warn(m, p, l, c->line, "<collision> left out: %s", why);
			continue;
		}
		sn_shape_def sd = sn_default_shape_def();
		sd.geometry = g;
		sd.material = def->collision_material;
		sd.filter = def->collision_filter;
		sd.user_data = (uint64_t)i;
		sn_transform in_link =
			is_identity(c->origin) ? p->link_offset[c->link] : sn_transform_mul(p->link_offset[c->link], c->origin);
		if (on_world)
		{
			// The world above a floating base: the root link's frame is the build's base pose.
			sd.body = (sn_body_id){ 0 };
			sd.local_pose = sn_transform_mul(def->articulation.base_pose, in_link);
		}
		else
		{
			sd.body = sn_articulation_get_link_body(world, art, a);
			sd.local_pose = in_link;
		}
		sn_shape_id id;
		sn_error err = sn_create_shape(world, &sd, &id);
		free(points);
		free(indices);
		if (err == SN_ERR_INVALID_ARGUMENT && c->type == SNM_GEOMETRY_MESH)
		{
			// A flat or degenerate hull (a plane of triangles, a zero scale): no solid to collide with.
			plan_warn(m, p, l, c->line, "<collision> mesh \"%.100s\" left out: %.120s", c->mesh,
					  sn_world_last_error_detail(world));
			continue;
		}
		if (err != SN_ERR_OK)
		{
			char element[96];
			snprintf(element, sizeof(element), "<link name=\"%.60s\"> <collision>", l->name);
			return model_fail(error, err, m->file, c->line, 0, element, "the core rejected the shape: %s (%s)",
							  sn_error_name(err), sn_world_last_error_detail(world));
		}
		list->ids[list->count] = id;
		list->collision[list->count] = i;
		list->count++;
		list->world_shapes = list->world_shapes || on_world;
		if (g.type == SN_SHAPE_HULL)
		{
			list->hull_vertices += sn_shape_get_hull_vertices(world, id, NULL, 0);
		}
	}
	return SN_ERR_OK;
}

sn_error snm_build_check(const snm_model* model, const snm_build_def* def, snm_error* error)
{
	model_error_clear(error);
	if (model == NULL || def == NULL)
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, "<urdf>", 0, 0, "", "model and def are required");
	}
	plan p;
	sn_error err = make_plan(model, def, &p, error);
	if (err == SN_ERR_OK)
	{
		plan_free(&p);
	}
	return err;
}

void snm_build_result_free(snm_build_result* result)
{
	if (result == NULL)
	{
		return;
	}
	free(result->link_index);
	free(result->link_offset);
	free(result->joint_link);
	free(result->joint_dof);
	free(result->joint_dof_count);
	free(result->joint_mimic);
	free(result->articulation_link_model);
	free(result->shapes);
	free(result->shape_collision);
	free(result->warnings);
	memset(result, 0, sizeof(*result));
	result->floating_joint = -1;
}

sn_error snm_build(sn_world* world, const snm_model* model, const snm_build_def* def, snm_build_result* result,
				   snm_error* error)
{
	model_error_clear(error);
	if (result != NULL)
	{
		memset(result, 0, sizeof(*result));
		result->floating_joint = -1;
	}
	if (world == NULL || model == NULL || def == NULL || result == NULL)
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, "<urdf>", 0, 0, "",
						  "world, model, def and result are required");
	}
	plan p;
	sn_error err = make_plan(model, def, &p, error);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	size_t joints = (size_t)(model->joint_count > 0 ? model->joint_count : 1);
	sn_mimic_id* mimics = calloc(joints, sizeof(sn_mimic_id));
	int* art_model = malloc((size_t)p.art_count * sizeof(int));
	if (mimics == NULL || art_model == NULL)
	{
		free(mimics);
		free(art_model);
		plan_free(&p);
		return model_fail(error, SN_ERR_NO_MEMORY, model->file, 0, 0, "", "out of memory building");
	}
	memcpy(art_model, p.art_model_link, (size_t)p.art_count * sizeof(int));

	sn_articulation_def ad = def->articulation;
	ad.fixed_base = p.fixed_base;
	ad.base_pose = p.base_pose;
	sn_articulation_id art;
	err = sn_create_articulation(world, &ad, p.links, p.art_count, &art);
	if (err != SN_ERR_OK)
	{
		model_fail(error, err, model->file, 0, 0, "<robot>", "the core rejected the articulation: %s (%s)",
				   sn_error_name(err), sn_world_last_error_detail(world));
	}
	for (int j = 0; err == SN_ERR_OK && j < model->joint_count; ++j)
	{
		const snm_joint* jt = &model->joints[j];
		if (jt->mimic < 0)
		{
			continue;
		}
		sn_mimic_def md = sn_default_mimic_def();
		md.articulation = art;
		md.dof_count = 2;
		md.dofs[0] = p.joint_dof[j];
		md.dofs[1] = p.joint_dof[jt->mimic];
		md.gearing[0] = 1.0;
		snm_urdf_mimic_to_core(jt->multiplier, jt->offset, &md.gearing[1], &md.offset);
		md.erp = def->mimic_erp;
		md.soft = def->mimic_soft;
		md.max_force = def->mimic_max_force;
		md.user_data = (uint64_t)j;
		err = sn_create_mimic_joint(world, &md, &mimics[j]);
		if (err != SN_ERR_OK)
		{
			char element[96];
			snprintf(element, sizeof(element), "<joint name=\"%.60s\">", jt->name);
			model_fail(error, err, model->file, jt->mimic_line, 0, element, "the core rejected the mimic row: %s (%s)",
					   sn_error_name(err), sn_world_last_error_detail(world));
			sn_destroy_articulation(world, art);
		}
	}
	shape_list shapes;
	memset(&shapes, 0, sizeof(shapes));
	if (err == SN_ERR_OK)
	{
		err = add_collision_shapes(world, model, def, &p, art, &shapes, error);
		if (err != SN_ERR_OK)
		{
			destroy_world_shapes(world, shapes.ids, shapes.count);
			sn_destroy_articulation(world, art);
		}
	}
	if (err != SN_ERR_OK)
	{
		free(shapes.ids);
		free(shapes.collision);
		free(mimics);
		free(art_model);
		plan_free(&p);
		return err;
	}
	result->shape_count = shapes.count;
	result->shapes = shapes.ids;
	result->shape_collision = shapes.collision;
	result->hull_vertex_count = shapes.hull_vertices;
	result->articulation = art;
	result->link_count = p.link_count;
	result->link_index = p.link_index;
	result->link_offset = p.link_offset;
	result->joint_count = p.joint_count;
	result->joint_link = p.joint_link;
	result->joint_dof = p.joint_dof;
	result->joint_dof_count = p.joint_dof_count;
	result->joint_mimic = mimics;
	result->articulation_link_count = p.art_count;
	result->articulation_link_model = art_model;
	result->floating_joint = p.floating_joint;
	result->warnings = p.warnings;
	result->warning_count = p.warning_count;
	result->warnings_dropped = p.warnings_dropped;
	// The result owns these now.
	p.warnings = NULL;
	p.link_index = NULL;
	p.link_offset = NULL;
	p.joint_link = NULL;
	p.joint_dof = NULL;
	p.joint_dof_count = NULL;
	plan_free(&p);
	return SN_ERR_OK;
}

void snm_build_undo(sn_world* world, const snm_build_result* result)
{
	destroy_world_shapes(world, result->shapes, result->shape_count);
	sn_destroy_articulation(world, result->articulation);
}
