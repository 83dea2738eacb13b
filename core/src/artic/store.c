// Articulations: defaults, validation, the store inside sn_world, creation and destruction, structure
// getters, and the per-step bookkeeping (efforts, forces out, divergence, hash).
//
// The state getters and setters, applied forces, drives and limits are in artic/access.c.
//
// Topology: link i > 0 names a parent with a smaller index, so walking parents from any link strictly
// decreases the index and ends at link 0. A cycle is therefore impossible by construction; the only
// topology errors are a base with a parent, and a parent index that is negative or not smaller than
// the link's own.
//
// Memory: one block per articulation holds the model, the state and the per-solve scratch, all in link
// (or dof) order; a second block holds the rows, sized by the dofs that carry rows and grown only by
// creation, setters and mimic joints (never by a step).
#include "artic/artic.h"
#include "island.h"
#include "hash.h"

#include "math/mathx.h"
#include "shape.h"
#include "world.h"

#include <math.h>
#include <stdalign.h>
#include <stdio.h>
#include <string.h>

// ---- defaults -----------------------------------------------------------------------------------------

sn_articulation_def sn_default_articulation_def(void)
{
	sn_articulation_def def;
	memset(&def, 0, sizeof(def));
	def.fixed_base = true;
	def.base_pose = sn_transform_identity();
	def.gravity_scale = 1.0;
	def.midpoint_velocity_terms = true;
	def.max_correction_speed = 1.0;
	return def;
}

sn_drive sn_default_drive(void)
{
	sn_drive d;
	memset(&d, 0, sizeof(d));
	d.enabled = false;
	d.type = SN_DRIVE_FORCE;
	d.max_force = INFINITY;
	d.max_velocity = INFINITY;
	return d;
}

sn_link_def sn_default_link_def(void)
{
	sn_link_def def;
	memset(&def, 0, sizeof(def));
	def.parent = -1;
	def.joint_type = SN_LINK_JOINT_REVOLUTE;
	def.parent_frame = sn_transform_identity();
	def.child_frame = sn_transform_identity();
	def.mass = 1.0;
	def.inertia = sn_mat33_diag(0.004, 0.004, 0.004);
	for (int d = 0; d < SN_LINK_MAX_DOFS; ++d)
	{
		def.limit[d].enabled = false;
		def.limit[d].soft = sn_soft_rigid();
		def.drive[d] = sn_default_drive();
	}
	def.max_joint_velocity = INFINITY;
	return def;
}

// ---- the store ----------------------------------------------------------------------------------------

artic* artic_get(const sn_world* world, sn_articulation_id id)
{
	if (world == NULL || world->artics == NULL)
	{
		return NULL;
	}
	const artic_store* s = world->artics;
	if (id.index1 <= 0 || id.index1 > s->high)
	{
		return NULL;
	}
	artic* a = s->items + (id.index1 - 1);
	return (a->live && world_id_generation(world, a->generation) == id.generation) ? a : NULL;
}

static sn_articulation_id id_of(const sn_world* world, int index)
{
	sn_articulation_id id = { index + 1, world_id_generation(world, world->artics->items[index].generation) };
	return id;
}

static void free_artic(sn_world* world, artic* a)
{
	memset(&a->rows, 0, sizeof(a->rows)); // its arrays are the step's scratch
	memory_free(&world->memory, a->block, a->block_size);
	a->block = NULL;
	a->block_size = 0;
}

void artic_store_destroy(sn_world* world)
{
	artic_store* s = world->artics;
	if (s == NULL)
	{
		return;
	}
	for (int i = 0; i < s->high; ++i)
	{
		if (s->items[i].live)
		{
			free_artic(world, s->items + i);
		}
	}
	memory_free(&world->memory, s->items, (size_t)s->capacity * sizeof(artic));
	memory_free(&world->memory, s->mimics, (size_t)s->mimic_capacity * sizeof(artic_mimic));
	memory_free(&world->memory, s, sizeof(artic_store));
	world->artics = NULL;
}

artic_store* artic_store_get(sn_world* world)
{
	if (world->artics == NULL)
	{
		artic_store* s = memory_alloc(&world->memory, sizeof(artic_store));
		if (s == NULL)
		{
			return NULL;
		}
		s->free = -1;
		s->mimic_free = -1;
		world->artics = s;
	}
	return world->artics;
}

// ---- memory layout ------------------------------------------------------------------------------------

// Carve arrays out of one block: a first pass with base NULL measures, a second hands out pointers.
typedef struct carver
{
	unsigned char* base;
	size_t offset;
} carver;

static void* carve(carver* c, size_t count, size_t size)
{
	size_t align = alignof(max_align_t);
	c->offset = (c->offset + align - 1) / align * align;
	void* p = c->base != NULL ? c->base + c->offset : NULL;
	c->offset += count * size;
	return p;
}

// ---- the step's scratch ----------------------------------------------------------------------------------

static size_t temp_bytes(const artic* a)
{
	return scratch_round((size_t)a->link_count * sizeof(artic_link_temp));
}

static size_t dof_work_bytes(const artic* a)
{
	return scratch_round((size_t)a->dof_count * sizeof(artic_dof_work));
}

static void layout_rows(artic_rows* r, carver* c, int k, int row_capacity, int wj_capacity);

size_t artic_scratch_demand(const sn_world* world)
{
	const artic_store* s = world->artics;
	size_t bytes = 0;
	for (int i = 0; s != NULL && i < s->high; ++i)
	{
		const artic* a = s->items + i;
		bytes += a->live ? temp_bytes(a) + dof_work_bytes(a) + scratch_round(a->rows.scratch_bytes) : 0;
	}
	return bytes;
}

void artic_scratch_bind(sn_world* world, unsigned char* base)
{
	artic_store* s = world->artics;
	size_t offset = 0;
	for (int i = 0; s != NULL && i < s->high; ++i)
	{
		artic* a = s->items + i;
		if (a->live)
		{
			a->temp = (artic_link_temp*)(void*)(base + offset);
			offset += temp_bytes(a);
			// Never NULL in a step, even without dofs: the passes form a->dw + l->dof for every link, and NULL
			// plus 0 is undefined behaviour (found by fuzzing a URDF whose joints are all fixed).
			a->dw = (artic_dof_work*)(void*)(base + offset);
			offset += dof_work_bytes(a);
			artic_rows* r = &a->rows;
			carver c = { r->scratch_bytes > 0 ? base + offset : NULL, 0 };
			layout_rows(r, &c, r->k_capacity, r->row_capacity, r->wj_capacity);
			offset += scratch_round(r->scratch_bytes);
		}
	}
}

void artic_scratch_unbind(sn_world* world)
{
	artic_store* s = world->artics;
	for (int i = 0; s != NULL && i < s->high; ++i)
	{
		artic* a = s->items + i;
		a->temp = NULL;
		a->dw = NULL;
		carver c = { NULL, 0 };
		layout_rows(&a->rows, &c, 0, 0, 0);
	}
}

// The arrays a step of a world without collision shapes or joints on links reads or writes come first,
// block_hot bytes of them, so that sn_world_prefetch can ask for one range (world.c, plan_prefetch); then
// the def's copy (which the collision stage and joints on links also read every step: the plan then takes
// the whole block) and the inputs (read only when some were applied).
static void layout_artic(artic* a, carver* c)
{
	size_t n = (size_t)a->link_count, d = (size_t)a->dof_count;
	a->links = carve(c, n, sizeof(artic_link));
	a->k = carve(c, n, sizeof(sn_mat33));
	a->kin = carve(c, n, sizeof(artic_kin));
	a->work = carve(c, n, sizeof(artic_work));
	a->dof_link = carve(c, d, sizeof(int32_t));
	a->q = carve(c, d, sizeof(double));
	a->qd = carve(c, d, sizeof(double));
	a->qd_free = carve(c, d, sizeof(double));
	a->qdd_free = carve(c, d, sizeof(double));
	a->qdd_prev = carve(c, d, sizeof(double));
	a->dof_slot = carve(c, d, sizeof(int32_t));
	a->limit_near = carve(c, d, sizeof(uint8_t));
	a->subtree = carve(c, n, sizeof(int32_t));
	a->reach = carve(c, n, sizeof(int32_t));
	a->needed = carve(c, n, sizeof(uint8_t));
	a->link_contact = carve(c, n, sizeof(uint8_t));
	a->drives = carve(c, d, sizeof(sn_drive));
	a->limits = carve(c, d, sizeof(sn_limit));
	a->warm = carve(c, d * ARTIC_WARM_SLOTS, sizeof(double));
	a->effort = carve(c, d, sizeof(double));
	a->sph = carve(c, n, sizeof(sn_quat));
	a->incoming = carve(c, n, sizeof(sv6));
	a->link_body = carve(c, n, sizeof(int32_t));
	a->block_hot = c->offset;
	a->info = carve(c, n, sizeof(artic_link_info));
	a->joint_force = carve(c, d, sizeof(double));
	a->link_force = carve(c, n, sizeof(sv6));
}

static void layout_rows(artic_rows* r, carver* c, int k, int row_capacity, int wj_capacity)
{
	r->act_dof = carve(c, (size_t)k, sizeof(int32_t));
	r->span_lo = carve(c, (size_t)k, sizeof(int32_t));
	r->span_hi = carve(c, (size_t)k, sizeof(int32_t));
	r->w = carve(c, (size_t)k * (size_t)k, sizeof(double));
	r->v = carve(c, (size_t)k, sizeof(double));
	r->x0 = carve(c, (size_t)k, sizeof(double));
	r->dx = carve(c, (size_t)k, sizeof(double));
	r->p = carve(c, (size_t)k, sizeof(double));
	r->y = carve(c, (size_t)k, sizeof(double));
	r->vp = carve(c, (size_t)k, sizeof(double));
	r->pp = carve(c, (size_t)k, sizeof(double));
	r->wj = carve(c, (size_t)k * (size_t)wj_capacity, sizeof(double));
	r->rows = carve(c, (size_t)row_capacity, sizeof(artic_row));
	r->block_rows = carve(c, (size_t)k, sizeof(int32_t));
	r->block_col = carve(c, (size_t)k, sizeof(int32_t));
	r->block_nz = carve(c, (size_t)k, sizeof(int32_t));
	r->block_d = carve(c, (size_t)k, sizeof(double));
	r->block_v = carve(c, (size_t)k, sizeof(double));
	r->block_l = carve(c, (size_t)k * (size_t)k, sizeof(double));
	r->block_x = carve(c, (size_t)k, sizeof(double));
	r->block_inv = carve(c, (size_t)k, sizeof(double));
	size_t hold = (size_t)k + (size_t)wj_capacity;
	r->hold_rows = carve(c, hold, sizeof(int32_t));
	r->hold_l = carve(c, hold * hold, sizeof(double));
	r->hold_x = carve(c, hold, sizeof(double));
	r->hold_inv = carve(c, hold, sizeof(double));
	r->fast_a = carve(c, (size_t)k, sizeof(double));
	r->fast_c = carve(c, (size_t)k, sizeof(double));
	r->fast_cpos = carve(c, (size_t)k, sizeof(double));
	r->fast_ctp = carve(c, (size_t)k, sizeof(double));
	r->fast_bound = carve(c, (size_t)k, sizeof(double));
	r->fast_speed = carve(c, (size_t)k, sizeof(double));
	r->fast_share = carve(c, (size_t)k, sizeof(double));
	r->fast_total = carve(c, (size_t)k, sizeof(double));
	r->fast_g = carve(c, (size_t)k, sizeof(double));
	r->fast_y = carve(c, (size_t)k, sizeof(double));
	r->fast_u6 = carve(c, (size_t)k, sizeof(sv6));
	r->fast_dinv = carve(c, (size_t)k, sizeof(double));
	r->fast_parent = carve(c, (size_t)k, sizeof(int32_t));
}

// Dofs that carry rows and the rows they need, for the articulation's model plus an optional mimic
// joint about to be created.
static void row_demand(const sn_world* world, const artic* a, int self, const sn_mimic_def* extra, int* k_out,
					   int* rows_out, int* mimics_out)
{
	int k = 0, rows = 0, mimics = 0;
	const artic_store* s = world->artics;
	for (int d = 0; d < a->dof_count; ++d)
	{
		const artic_link* l = a->links + a->dof_link[d];
		bool active = false;
		if (a->limits[d].enabled)
		{
			rows += 2;
			active = true;
		}
		if (a->drives[d].enabled)
		{
			rows += 1;
			active = true;
		}
		if (l->joint_friction > 0.0)
		{
			rows += 1;
			active = true;
		}
		if (!active)
		{
			for (int m = 0; s != NULL && self >= 0 && m < s->mimic_high && !active; ++m)
			{
				const artic_mimic* mm = s->mimics + m;
				if (!mm->live || mm->artic != self)
				{
					continue;
				}
				for (int i = 0; i < mm->def.dof_count; ++i)
				{
					active = active || mm->def.dofs[i] == d;
				}
			}
			if (extra != NULL)
			{
				for (int i = 0; i < extra->dof_count; ++i)
				{
					active = active || extra->dofs[i] == d;
				}
			}
		}
		k += active ? 1 : 0;
	}
	// Contacts on the links may make every dof active, and a floating base's six velocities too
	// (artic/solve.c, contact rows).
	if (a->shape_count > 0 || a->link_joint_count > 0)
	{
		k = a->dof_count + (a->fixed_base ? 0 : ARTIC_BASE_SLOTS);
	}
	mimics = a->mimic_count + (extra != NULL ? 1 : 0);
	*k_out = k;
	*rows_out = rows + mimics;
	*mimics_out = mimics;
}

enum
{
	MAX_ROW_DOFS = SN_ARTICULATION_MAX_ROW_DOFS
};

// self: the articulation's slot (-1 while it is being created).
static sn_error reserve_rows_for(sn_world* world, artic* a, int self, const sn_mimic_def* extra)
{
	int k, rows, mimics;
	row_demand(world, a, self, extra, &k, &rows, &mimics);
	if (k > MAX_ROW_DOFS)
	{
		return world_fail(
			world, SN_ERR_CAPACITY,
			"articulation: %d dofs would carry limits, drives, friction, mimic or contact rows (contacts on "
			"links need every dof and a floating base's six velocities); at most %d may",
			k, MAX_ROW_DOFS);
	}
	// Each mimic joint is a row of the dense system the hold solves (k + mimics square): bounded like the
	// dofs, or one articulation's step could grow without end.
	if (mimics > MAX_ROW_DOFS)
	{
		return world_fail(world, SN_ERR_CAPACITY, "articulation: %d mimic joints; at most %d may act on one", mimics,
						  MAX_ROW_DOFS);
	}
	artic_rows* r = &a->rows;
	if (k <= r->k_capacity && rows <= r->row_capacity && mimics <= r->wj_capacity)
	{
		return SN_ERR_OK;
	}
	// Grow with headroom so that enabling rows one dof at a time does not reallocate each time.
	int kc = k > r->k_capacity ? (k + 3 > a->dof_count ? a->dof_count : k + 3) : r->k_capacity;
	kc = kc < k ? k : kc;
	int rc = rows > r->row_capacity ? rows + 8 : r->row_capacity;
	int mc = mimics > r->wj_capacity ? mimics + 2 : r->wj_capacity;
	// The arrays themselves are the step's scratch (artic_scratch_bind): only their footprint is kept.
	carver c = { NULL, 0 };
	layout_rows(r, &c, kc, rc, mc);
	r->scratch_bytes = c.offset;
	r->k_capacity = kc;
	r->row_capacity = rc;
	r->wj_capacity = mc;
	r->hold_capacity = kc + mc;
	return SN_ERR_OK;
}

sn_error artic_reserve_rows(sn_world* world, artic* a, const sn_mimic_def* extra)
{
	return reserve_rows_for(world, a, world->artics != NULL ? (int)(a - world->artics->items) : -1, extra);
}

// ---- validation ---------------------------------------------------------------------------------------

static int type_dofs(sn_link_joint_type type)
{
	switch (type)
	{
		case SN_LINK_JOINT_REVOLUTE:
		case SN_LINK_JOINT_PRISMATIC:
			return 1;
		case SN_LINK_JOINT_SPHERICAL:
			return 3;
		default:
			return 0;
	}
}

static bool valid_joint_type(sn_link_joint_type type)
{
	return type == SN_LINK_JOINT_FIXED || type == SN_LINK_JOINT_REVOLUTE || type == SN_LINK_JOINT_PRISMATIC ||
		type == SN_LINK_JOINT_SPHERICAL;
}

static sn_error check_transform(sn_world* world, const char* what, int link, sn_transform t)
{
	if (!sn_vec3_is_finite(t.p) || !sn_quat_is_finite(t.q))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "link %d: %s must be finite", link, what);
	}
	if (sn_quat_length(t.q) < 1e-9)
	{
		return world_fail(world, SN_ERR_ZERO_AXIS, "link %d: %s rotation quaternion has zero length", link, what);
	}
	if (!(sn_length(t.p) <= SN_MAX_OFFSET))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT,
						  "link %d: %s offset (%g, %g, %g) m is farther than SN_MAX_OFFSET (%g m)", link, what, t.p.x,
						  t.p.y, t.p.z, SN_MAX_OFFSET);
	}
	return SN_ERR_OK;
}

static sn_error check_nonnegative(sn_world* world, const char* what, int link, double value)
{
	if (!isfinite(value))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "link %d: %s must be finite", link, what);
	}
	if (value < 0.0)
	{
		return world_fail(world, SN_ERR_NEGATIVE_VALUE, "link %d: %s must be >= 0, got %g", link, what, value);
	}
	return SN_ERR_OK;
}

sn_error artic_check_limit(sn_world* world, const char* where, sn_limit limit)
{
	if (!limit.enabled)
	{
		return SN_ERR_OK;
	}
	if (!isfinite(limit.lower) || !isfinite(limit.upper))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: limits must be finite", where);
	}
	if (limit.lower > limit.upper)
	{
		return world_fail(world, SN_ERR_LIMITS_ORDER, "%s: lower limit %g is above upper limit %g", where, limit.lower,
						  limit.upper);
	}
	sn_error err = soft_check(limit.soft);
	if (err == SN_ERR_NOT_FINITE)
	{
		return world_fail(world, err, "%s: limit softness must be finite", where);
	}
	if (err == SN_ERR_NEGATIVE_VALUE)
	{
		return world_fail(world, err, "%s: limit softness values must be >= 0", where);
	}
	if (err != SN_ERR_OK)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: unknown softness kind %d", where, (int)limit.soft.kind);
	}
	return SN_ERR_OK;
}

sn_error artic_check_drive(sn_world* world, const char* where, const sn_drive* drive)
{
	if (drive->type != SN_DRIVE_FORCE && drive->type != SN_DRIVE_ACCELERATION)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: unknown drive type %d", where, (int)drive->type);
	}
	if (!isfinite(drive->stiffness) || !isfinite(drive->damping) || !isfinite(drive->target_position) ||
		!isfinite(drive->target_velocity) || isnan(drive->max_force) || isnan(drive->max_velocity))
	{
		return world_fail(world, SN_ERR_NOT_FINITE,
						  "%s: drive stiffness, damping and targets must be finite, max_force and max_velocity not NaN",
						  where);
	}
	if (!(drive->max_velocity > 0.0))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT,
						  "%s: drive max_velocity must be > 0 (may be INFINITY), got %g", where, drive->max_velocity);
	}
	if (drive->stiffness < 0.0 || drive->damping < 0.0 || drive->max_force < 0.0)
	{
		return world_fail(world, SN_ERR_NEGATIVE_VALUE,
						  "%s: drive stiffness %g, damping %g and max_force %g must be >= 0", where, drive->stiffness,
						  drive->damping, drive->max_force);
	}
	return SN_ERR_OK;
}

static sn_error check_link(sn_world* world, const sn_link_def* l, int i)
{
	if (i == 0 && l->parent != -1)
	{
		return world_fail(world, SN_ERR_TOPOLOGY, "link 0 is the base: its parent must be -1, got %d", l->parent);
	}
	if (i > 0 && (l->parent < 0 || l->parent >= i))
	{
		return world_fail(world, SN_ERR_TOPOLOGY,
						  "link %d: parent %d must be an earlier link (0..%d); only link 0 is the base", i, l->parent,
						  i - 1);
	}
	if (!isfinite(l->mass) || !mat33_is_finite(l->inertia) || !sn_vec3_is_finite(l->center_of_mass))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "link %d: mass, inertia and centre of mass must be finite", i);
	}
	if (!(l->mass > 0.0))
	{
		return world_fail(world, SN_ERR_NON_POSITIVE_MASS, "link %d: mass must be > 0 kg, got %g", i, l->mass);
	}
	if (!mat33_is_spd(l->inertia))
	{
		return world_fail(world, SN_ERR_INERTIA_NOT_PD,
						  "link %d: inertia must be symmetric positive definite (diagonal %g %g %g kg*m^2)", i,
						  l->inertia.cx.x, l->inertia.cy.y, l->inertia.cz.z);
	}
	if (i == 0)
	{
		return SN_ERR_OK;
	}
	if (!valid_joint_type(l->joint_type))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "link %d: unknown joint type %d", i, (int)l->joint_type);
	}
	sn_error err = check_transform(world, "parent_frame", i, l->parent_frame);
	if (err == SN_ERR_OK)
	{
		err = check_transform(world, "child_frame", i, l->child_frame);
	}
	if (err == SN_ERR_OK)
	{
		err = check_nonnegative(world, "joint_damping", i, l->joint_damping);
	}
	if (err == SN_ERR_OK)
	{
		err = check_nonnegative(world, "joint_friction", i, l->joint_friction);
	}
	if (err == SN_ERR_OK)
	{
		err = check_nonnegative(world, "armature", i, l->armature);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (isnan(l->max_joint_velocity) || !(l->max_joint_velocity > 0.0))
	{
		return world_fail(world, isnan(l->max_joint_velocity) ? SN_ERR_NOT_FINITE : SN_ERR_INVALID_ARGUMENT,
						  "link %d: max_joint_velocity must be > 0 (INFINITY allowed), got %g", i,
						  l->max_joint_velocity);
	}
	char where[64];
	for (int d = 0; d < type_dofs(l->joint_type); ++d)
	{
		snprintf(where, sizeof(where), "link %d dof %d", i, d);
		err = artic_check_limit(world, where, l->limit[d]);
		if (err == SN_ERR_OK)
		{
			err = artic_check_drive(world, where, l->drive + d);
		}
		if (err != SN_ERR_OK)
		{
			return err;
		}
		if (!isfinite(l->initial_position[d]) || !isfinite(l->initial_velocity[d]))
		{
			return world_fail(world, SN_ERR_NOT_FINITE, "%s: initial position and velocity must be finite", where);
		}
	}
	return SN_ERR_OK;
}

static sn_error check_articulation_def(sn_world* world, const sn_articulation_def* def)
{
	if (!sn_vec3_is_finite(def->base_pose.p) || !sn_quat_is_finite(def->base_pose.q))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "articulation: base_pose must be finite");
	}
	if (sn_quat_length(def->base_pose.q) < 1e-9)
	{
		return world_fail(world, SN_ERR_ZERO_AXIS, "articulation: base_pose rotation quaternion has zero length");
	}
	if (!sn_vec3_is_finite(def->base_linear_velocity) || !sn_vec3_is_finite(def->base_angular_velocity) ||
		!isfinite(def->gravity_scale))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "articulation: base velocity and gravity_scale must be finite");
	}
	if (!(def->max_correction_speed > 0.0))
	{
		return world_fail(world, def->max_correction_speed == 0.0 ? SN_ERR_INVALID_ARGUMENT : SN_ERR_NOT_FINITE,
						  "articulation: max_correction_speed must be > 0 (may be INFINITY), got %g",
						  def->max_correction_speed);
	}
	return SN_ERR_OK;
}

// ---- creation -----------------------------------------------------------------------------------------

static bool quat_same_rotation(sn_quat a, sn_quat b)
{
	return (a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w) ||
		(a.x == -b.x && a.y == -b.y && a.z == -b.z && a.w == -b.w);
}

static sn_transform unit_frame(sn_transform t)
{
	t.q = sn_quat_normalize(t.q);
	return t;
}

// Rcf^T I Rcf as a symmetric matrix. Off-diagonal rounding noise (below 1e-14 of the trace) is set to
// exactly zero so that an inertia that is diagonal in the joint frame takes the diagonal path.
static sym33 inertia_in_joint_frame(sn_mat33 inertia, sn_quat cf, bool* diagonal)
{
	sn_quat identity = sn_quat_identity();
	sn_mat33 m = inertia;
	if (!quat_same_rotation(cf, identity))
	{
		sn_mat33 r = sn_mat33_from_quat(cf);
		m = sn_mat33_mul(sn_mat33_transpose(r), sn_mat33_mul(inertia, r));
	}
	sym33 s = { m.cx.x, m.cy.y, m.cz.z, 0.5 * (m.cy.x + m.cx.y), 0.5 * (m.cz.x + m.cx.z), 0.5 * (m.cz.y + m.cy.z) };
	double tol = 1e-14 * (fabs(s.xx) + fabs(s.yy) + fabs(s.zz));
	s.xy = fabs(s.xy) <= tol ? 0.0 : s.xy;
	s.xz = fabs(s.xz) <= tol ? 0.0 : s.xz;
	s.yz = fabs(s.yz) <= tol ? 0.0 : s.yz;
	*diagonal = s.xy == 0.0 && s.xz == 0.0 && s.yz == 0.0;
	return s;
}

// Hot and cold model of link i (see artic/kinematics.c for K, t, com_j and inertia_j).
static void init_link(artic_link* hot, artic_link_info* info, sn_mat33* k, const sn_link_def* links, int i, int dof)
{
	const sn_link_def* l = links + i;
	memset(hot, 0, sizeof(*hot));
	memset(info, 0, sizeof(*info));
	hot->parent = i == 0 ? -1 : l->parent;
	hot->dof = dof;
	hot->type = (uint8_t)(i == 0 ? SN_LINK_JOINT_FIXED : l->joint_type);
	hot->dof_count = (uint8_t)(i == 0 ? 0 : type_dofs(l->joint_type));
	hot->mass = l->mass;
	hot->armature = l->armature;
	hot->joint_damping = l->joint_damping;
	hot->joint_friction = l->joint_friction;
	hot->max_joint_velocity = i == 0 ? INFINITY : l->max_joint_velocity;
	// The frames as given (the model is rebuilt from them, bit for bit, when a snapshot is restored).
	info->parent_frame = i == 0 ? sn_transform_identity() : l->parent_frame;
	info->child_frame = i == 0 ? sn_transform_identity() : l->child_frame;
	sn_transform cf = unit_frame(info->child_frame);
	info->inertia = l->inertia;
	info->com = l->center_of_mass;
	info->user_data = l->user_data;
	sn_mat33 rcf = sn_mat33_from_quat(cf.q);
	info->cf_rot_t = sn_mat33_transpose(rcf);
	hot->com_j = sn_mat33_mul_v(info->cf_rot_t, sn_sub(l->center_of_mass, cf.p));
	hot->inertia_j = inertia_in_joint_frame(l->inertia, cf.q, &hot->diag_inertia);
	*k = sn_mat33_diag(1, 1, 1);
	if (i == 0)
	{
		hot->k_identity = true;
		return;
	}
	sn_transform pf = unit_frame(info->parent_frame);
	sn_transform cfp = l->parent == 0 ? sn_transform_identity() : unit_frame(links[l->parent].child_frame);
	sn_mat33 cfp_t = sn_mat33_transpose(sn_mat33_from_quat(cfp.q));
	hot->t = sn_mat33_mul_v(cfp_t, sn_sub(pf.p, cfp.p));
	hot->k_identity = quat_same_rotation(cfp.q, pf.q);
	if (!hot->k_identity)
	{
		*k = sn_mat33_mul(cfp_t, sn_mat33_from_quat(pf.q));
	}
}

sn_error artic_build(sn_world* world, const sn_articulation_def* def, const sn_link_def* links, int link_count,
					 artic* out)
{
	if (link_count < 1)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create articulation: link_count must be >= 1, got %d",
						  link_count);
	}
	if (link_count > SN_ARTICULATION_MAX_LINKS)
	{
		return world_fail(world, SN_ERR_CAPACITY, "create articulation: at most %d links, got %d",
						  SN_ARTICULATION_MAX_LINKS, link_count);
	}
	sn_error err = check_articulation_def(world, def);
	int dofs = 0, row_dofs = 0;
	for (int i = 0; i < link_count && err == SN_ERR_OK; ++i)
	{
		err = check_link(world, links + i, i);
		int nd = i > 0 ? type_dofs(links[i].joint_type) : 0;
		for (int d = 0; d < nd; ++d)
		{
			row_dofs += (links[i].limit[d].enabled || links[i].drive[d].enabled || links[i].joint_friction > 0.0);
		}
		dofs += nd;
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (row_dofs > MAX_ROW_DOFS)
	{
		return world_fail(world, SN_ERR_CAPACITY,
						  "create articulation: %d dofs carry limits, drives or friction; at most %d may", row_dofs,
						  MAX_ROW_DOFS);
	}

	artic a;
	memset(&a, 0, sizeof(a));
	a.link_count = link_count;
	a.dof_count = dofs;
	carver c = { NULL, 0 };
	layout_artic(&a, &c);
	a.block_size = c.offset;
	a.block = memory_alloc(&world->memory, a.block_size);
	if (a.block == NULL)
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "create articulation: out of memory for %d links", link_count);
	}
	c.base = a.block;
	c.offset = 0;
	layout_artic(&a, &c);

	a.fixed_base = def->fixed_base;
	a.self_collision = def->self_collision;
	for (int i = 0; i < link_count; ++i)
	{
		a.link_body[i] = -1; // the bodies are made when the articulation enters the store
	}
	a.midpoint = def->midpoint_velocity_terms;
	a.gravity_scale = def->gravity_scale;
	a.max_correction_speed = def->max_correction_speed;
	a.user_data = def->user_data;
	a.base_pose.p = def->base_pose.p;
	a.base_pose.q = sn_quat_normalize(def->base_pose.q);
	a.base_v = def->fixed_base ? sn_v3(0, 0, 0) : def->base_linear_velocity;
	a.base_w = def->fixed_base ? sn_v3(0, 0, 0) : def->base_angular_velocity;
	int dof = 0;
	for (int i = 0; i < link_count; ++i)
	{
		const sn_link_def* l = links + i;
		init_link(a.links + i, a.info + i, a.k + i, links, i, dof);
		a.sph[i] = sn_quat_identity();
		int nd = a.links[i].dof_count;
		if (a.links[i].type == SN_LINK_JOINT_SPHERICAL)
		{
			a.sph[i] = quat_exp(sn_v3(l->initial_position[0], l->initial_position[1], l->initial_position[2]));
		}
		for (int k = 0; k < nd; ++k)
		{
			a.dof_link[dof + k] = i;
			a.limits[dof + k] = l->limit[k];
			a.limit_count += l->limit[k].enabled;
			a.drives[dof + k] = l->drive[k];
			a.q[dof + k] = l->initial_position[k];
			a.qd[dof + k] = l->initial_velocity[k];
			a.dof_slot[dof + k] = -1;
		}
		dof += nd;
	}
	a.serial = true;
	for (int i = 1; i < link_count; ++i)
	{
		a.serial = a.serial && a.links[i].parent == i - 1;
	}
	artic_sync_spherical(&a);
	artic_update_kinematics(&a);
	err = reserve_rows_for(world, &a, -1, NULL);
	if (err != SN_ERR_OK)
	{
		free_artic(world, &a);
		return err;
	}
	*out = a;
	return SN_ERR_OK;
}

sn_error sn_create_articulation(sn_world* world, const sn_articulation_def* def, const sn_link_def* links,
								int link_count, sn_articulation_id* out_id)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (def == NULL || links == NULL || out_id == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT,
						  "create articulation: def, links and out_id must not be NULL");
	}
	// Build the record aside; it enters the pool only when everything succeeded.
	artic a;
	sn_error err = artic_build(world, def, links, link_count, &a);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	artic_store* s = artic_store_get(world);
	if (s != NULL && s->free < 0 && s->high >= s->capacity)
	{
		void* p = s->items;
		if (!memory_reserve(&world->memory, &p, &s->capacity, s->high + 1, sizeof(artic)))
		{
			s = NULL;
		}
		else
		{
			s->items = p;
		}
	}
	// Room for one body per link (their bodies, body.c), so that nothing below can fail.
	if (s != NULL && body_reserve(world, link_count) != SN_ERR_OK)
	{
		s = NULL;
	}
	if (s == NULL)
	{
		free_artic(world, &a);
		return world_fail(world, SN_ERR_NO_MEMORY, "create articulation: out of memory");
	}
	int32_t index = s->free;
	if (index >= 0)
	{
		s->free = s->items[index].next_free;
	}
	else
	{
		index = s->high++;
		s->items[index].generation = 1;
	}
	a.generation = s->items[index].generation;
	a.next_free = -1;
	a.live = true;
	s->items[index] = a;
	s->count += 1;
	body_create_links(world, index, link_count, s->items[index].link_body);
	*out_id = id_of(world, index);
	return SN_ERR_OK;
}

sn_error sn_destroy_articulation(sn_world* world, sn_articulation_id id)
{
	artic* a = artic_get(world, id);
	if (a == NULL)
	{
		return world != NULL ? world_fail(world, SN_ERR_INVALID_ID, "destroy articulation: invalid id")
							 : SN_ERR_INVALID_ARGUMENT;
	}
	artic_store* s = world->artics;
	int index = (int)(a - s->items);
	artic_mimic_destroy_all(world, index);
	body_destroy_links(world, a->link_count, a->link_body);
	free_artic(world, a);
	a->live = false;
	a->generation += 1;
	if (a->generation == 0)
	{
		a->generation = 1;
	}
	a->next_free = s->free;
	s->free = index;
	s->count -= 1;
	return SN_ERR_OK;
}

bool sn_articulation_is_valid(const sn_world* world, sn_articulation_id id)
{
	return artic_get(world, id) != NULL;
}

int sn_world_get_articulations(const sn_world* world, sn_articulation_id* ids, int capacity)
{
	if (world == NULL || world->artics == NULL)
	{
		return 0;
	}
	int n = 0;
	for (int i = 0; i < world->artics->high; ++i)
	{
		if (world->artics->items[i].live)
		{
			if (ids != NULL && n < capacity)
			{
				ids[n] = id_of(world, i);
			}
			n += 1;
		}
	}
	return n;
}

int sn_world_get_articulation_count(const sn_world* world)
{
	return (world != NULL && world->artics != NULL) ? world->artics->count : 0;
}

// ---- structure getters --------------------------------------------------------------------------------

int sn_articulation_get_link_count(const sn_world* world, sn_articulation_id id)
{
	const artic* a = artic_get(world, id);
	return a != NULL ? a->link_count : 0;
}

int sn_articulation_get_dof_count(const sn_world* world, sn_articulation_id id)
{
	const artic* a = artic_get(world, id);
	return a != NULL ? a->dof_count : 0;
}

static const artic_link* get_link(const sn_world* world, sn_articulation_id id, int link)
{
	const artic* a = artic_get(world, id);
	if (a == NULL || link < 0 || link >= a->link_count)
	{
		return NULL;
	}
	return a->links + link;
}

int sn_articulation_get_link_dof_offset(const sn_world* world, sn_articulation_id id, int link)
{
	const artic_link* l = get_link(world, id, link);
	return l != NULL ? l->dof : -1;
}

int sn_articulation_get_link_dof_count(const sn_world* world, sn_articulation_id id, int link)
{
	const artic_link* l = get_link(world, id, link);
	return l != NULL ? l->dof_count : 0;
}

int sn_articulation_get_link_parent(const sn_world* world, sn_articulation_id id, int link)
{
	const artic_link* l = get_link(world, id, link);
	return l != NULL ? l->parent : -1;
}

sn_link_joint_type sn_articulation_get_link_joint_type(const sn_world* world, sn_articulation_id id, int link)
{
	const artic_link* l = get_link(world, id, link);
	return l != NULL ? (sn_link_joint_type)l->type : SN_LINK_JOINT_FIXED;
}

uint64_t sn_articulation_get_link_user_data(const sn_world* world, sn_articulation_id id, int link)
{
	const artic* a = artic_get(world, id);
	return (a != NULL && link >= 0 && link < a->link_count) ? a->info[link].user_data : 0;
}

uint64_t sn_articulation_get_user_data(const sn_world* world, sn_articulation_id id)
{
	const artic* a = artic_get(world, id);
	return a != NULL ? a->user_data : 0;
}

bool sn_articulation_get_self_collision(const sn_world* world, sn_articulation_id id)
{
	const artic* a = artic_get(world, id);
	return a != NULL && a->self_collision;
}

sn_error sn_articulation_set_self_collision(sn_world* world, sn_articulation_id id, bool enabled)
{
	artic* a = artic_get(world, id);
	if (a == NULL)
	{
		return world != NULL ? world_fail(world, SN_ERR_INVALID_ID, "set self collision: invalid articulation id")
							 : SN_ERR_INVALID_ARGUMENT;
	}
	if (a->self_collision != enabled)
	{
		a->self_collision = enabled;
		world->contacts.refilter = true;
		for (int l = 0; l < a->link_count; ++l)
		{
			shape_touch_body(world, a->link_body[l]);
		}
	}
	island_wake_artic(world, id.index1 - 1);
	return SN_ERR_OK;
}

bool sn_articulation_is_fixed_base(const sn_world* world, sn_articulation_id id)
{
	const artic* a = artic_get(world, id);
	return a != NULL && a->fixed_base;
}

sn_error sn_articulation_get_link_def(const sn_world* world, sn_articulation_id id, int link, sn_link_def* out)
{
	const artic* a = artic_get(world, id);
	if (a == NULL)
	{
		return SN_ERR_INVALID_ID;
	}
	if (out == NULL || link < 0 || link >= a->link_count)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	const artic_link* l = a->links + link;
	const artic_link_info* info = a->info + link;
	*out = sn_default_link_def();
	out->parent = l->parent;
	out->joint_type = (sn_link_joint_type)l->type;
	out->parent_frame = info->parent_frame;
	out->child_frame = info->child_frame;
	out->mass = l->mass;
	out->inertia = info->inertia;
	out->center_of_mass = info->com;
	out->joint_damping = l->joint_damping;
	out->joint_friction = l->joint_friction;
	out->armature = l->armature;
	out->max_joint_velocity = l->max_joint_velocity;
	out->user_data = info->user_data;
	for (int k = 0; k < l->dof_count; ++k)
	{
		out->limit[k] = a->limits[l->dof + k];
		out->drive[k] = a->drives[l->dof + k];
		out->initial_position[k] = a->q[l->dof + k];
		out->initial_velocity[k] = a->qd[l->dof + k];
	}
	return SN_ERR_OK;
}

sn_articulation_def sn_articulation_get_def(const sn_world* world, sn_articulation_id id)
{
	const artic* a = artic_get(world, id);
	sn_articulation_def def = sn_default_articulation_def();
	if (a != NULL)
	{
		def.fixed_base = a->fixed_base;
		def.self_collision = a->self_collision;
		def.midpoint_velocity_terms = a->midpoint;
		def.max_correction_speed = a->max_correction_speed;
		def.base_pose = a->base_pose;
		def.base_linear_velocity = a->base_v;
		def.base_angular_velocity = a->base_w;
		def.gravity_scale = a->gravity_scale;
		def.user_data = a->user_data;
	}
	return def;
}

// ---- the step's bookkeeping ---------------------------------------------------------------------------

void artic_step_begin(sn_world* world)
{
	artic_store* s = world->artics;
	if (s == NULL)
	{
		return;
	}
	for (int i = 0; i < s->high; ++i)
	{
		s->items[i].first_substep = true;
	}
	s->path_windows = 0;
	s->path_leaves = 0;
	s->path_dense = 0;
	s->structured_holds = 0;
	s->midpoint_passes = 0;
	for (int m = 0; m < s->mimic_high; ++m)
	{
		s->mimics[m].step_impulse = 0.0;
	}
}

void artic_step_end(sn_world* world, double dt)
{
	artic_store* s = world->artics;
	if (s == NULL)
	{
		return;
	}
	for (int i = 0; i < s->high; ++i)
	{
		artic* a = s->items + i;
		if (!a->live)
		{
			continue;
		}
		a->step_dt = dt;
		if (a->has_inputs)
		{
			memset(a->joint_force, 0, (size_t)a->dof_count * sizeof(double));
			memset(a->link_force, 0, (size_t)a->link_count * sizeof(sv6));
			a->has_inputs = false;
		}
	}
	double inv_dt = 1.0 / dt;
	for (int m = 0; m < s->mimic_high; ++m)
	{
		artic_mimic* mm = s->mimics + m;
		if (mm->live)
		{
			mm->force = mm->step_impulse * inv_dt;
		}
	}
}

bool artic_diverged(const sn_world* world, double speed_limit)
{
	const artic_store* s = world->artics;
	if (s == NULL)
	{
		return false;
	}
	for (int i = 0; i < s->high; ++i)
	{
		const artic* a = s->items + i;
		if (!a->live)
		{
			continue;
		}
		if (!(a->max_speed <= speed_limit) || !sn_vec3_is_finite(a->base_pose.p) || !sn_quat_is_finite(a->base_pose.q))
		{
			return true;
		}
		// Link frames as the last solve left them (finite joint coordinates can still place a link at
		// infinity: a prismatic coordinate of 1e308).
		for (int l = 0; l < a->link_count; ++l)
		{
			if (!sn_vec3_is_finite(a->kin[l].anchor))
			{
				return true;
			}
		}
	}
	return false;
}

sn_error artic_check_state(const sn_world* world, double speed_limit)
{
	const artic_store* s = world->artics;
	if (s == NULL)
	{
		return SN_ERR_OK;
	}
	for (int i = 0; i < s->high; ++i)
	{
		const artic* a = s->items + i;
		if (!a->live)
		{
			continue;
		}
		if (!sn_vec3_is_finite(a->base_pose.p) || !sn_quat_is_finite(a->base_pose.q) || !sn_vec3_is_finite(a->base_v) ||
			!sn_vec3_is_finite(a->base_w))
		{
			return SN_ERR_NOT_FINITE;
		}
		for (int d = 0; d < a->dof_count; ++d)
		{
			if (!isfinite(a->q[d]) || !isfinite(a->qd[d]))
			{
				return SN_ERR_NOT_FINITE;
			}
		}
		for (int l = 0; l < a->link_count; ++l)
		{
			if (!sn_vec3_is_finite(a->kin[l].anchor))
			{
				return SN_ERR_NOT_FINITE;
			}
		}
		if (sn_length(a->base_v) > speed_limit || sn_length(a->base_w) > speed_limit)
		{
			return SN_ERR_DIVERGED;
		}
		for (int d = 0; d < a->dof_count; ++d)
		{
			if (fabs(a->qd[d]) > speed_limit)
			{
				return SN_ERR_DIVERGED;
			}
		}
	}
	return SN_ERR_OK;
}

uint64_t artic_state_hash(const sn_world* world, uint64_t h)
{
	const artic_store* s = world->artics;
	if (s == NULL)
	{
		return h;
	}
	for (int i = 0; i < s->high; ++i)
	{
		const artic* a = s->items + i;
		if (!a->live)
		{
			continue;
		}
		h = hash_bytes(h, &a->base_pose, sizeof(a->base_pose));
		h = hash_bytes(h, &a->base_v, sizeof(a->base_v));
		h = hash_bytes(h, &a->base_w, sizeof(a->base_w));
		if (world->def.sleep.enabled)
		{
			h = hash_bytes(h, &a->asleep, sizeof(a->asleep));
			h = hash_doubles(h, &a->sleep_time, 1);
		}
		h = hash_doubles(h, a->q, (size_t)a->dof_count);
		h = hash_doubles(h, a->qd, (size_t)a->dof_count);
		h = hash_bytes(h, a->sph, (size_t)a->link_count * sizeof(sn_quat));
		h = hash_doubles(h, a->warm, (size_t)a->dof_count * ARTIC_WARM_SLOTS);
		h = hash_doubles(h, a->effort, (size_t)a->dof_count);
		h = hash_bytes(h, artic_incoming(a), (size_t)a->link_count * sizeof(sv6));
		if (a->midpoint && a->free_history != ARTIC_FREE_NONE)
		{
			// What the next step's midpoint is predicted from (artic/dynamics.c); dropped history is not state.
			h = hash_bytes(h, &a->free_history, sizeof(a->free_history));
			h = hash_doubles(h, a->qdd_free, (size_t)a->dof_count);
			h = hash_bytes(h, &a->base_a_free, sizeof(a->base_a_free));
			if (a->free_history == ARTIC_FREE_TWO)
			{
				h = hash_doubles(h, a->qdd_prev, (size_t)a->dof_count);
				h = hash_bytes(h, &a->base_a_prev, sizeof(a->base_a_prev));
			}
		}
	}
	for (int m = 0; m < s->mimic_high; ++m)
	{
		const artic_mimic* mm = s->mimics + m;
		if (mm->live)
		{
			h = hash_doubles(h, &mm->warm, 1);
			h = hash_doubles(h, &mm->force, 1);
		}
	}
	return h;
}
