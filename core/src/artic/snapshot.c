// Snapshot section ARTC: the articulation and mimic joint pools, model and state, so that a restored
// world continues bit for bit.
//
// What is written. Per articulation slot: generation, free-list link, liveness; for a live one the def
// it was created from (the link defs with their frames exactly as given, and the limits and drives as
// they are now) and the state: base pose and velocity, joint positions and velocities, the spherical
// joints' quaternions, warm starts, the inputs applied for the next step, the last step's outputs
// (efforts, incoming joint forces, step length) and its free accelerations (the next step's midpoint
// prediction starts from them). Per mimic slot: the same header and, when live, its def
// (with the articulation's slot), warm start and last force.
//
// What is rebuilt. The hot model (joint-frame geometry, inertias) is derived from the def by the same
// code as creation (artic_build), which also validates every field exactly as creation does; the state
// is then laid over it and checked (finite, unit quaternions), and the kinematics are recomputed from it
// with the function the step uses, so they match the original to the bit. Per-solve scratch and row
// storage are not state: rows are re-reserved from the restored model.
#include "artic/artic.h"

#include "snap_bytes.h"
#include "world.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

enum
{
	MAX_SLOTS = 1 << 20
};

// ---- writing ------------------------------------------------------------------------------------------

static void put_transform(snap_writer* w, sn_transform t)
{
	snap_put_vec3(w, t.p);
	snap_put_quat(w, t.q);
}

static void put_sv6(snap_writer* w, sv6 v)
{
	snap_put_vec3(w, v.w);
	snap_put_vec3(w, v.v);
}

static void put_limit(snap_writer* w, const sn_limit* l)
{
	snap_put_u8(w, l->enabled ? 1 : 0);
	snap_put_f64(w, l->lower);
	snap_put_f64(w, l->upper);
	snap_put_soft(w, l->soft);
}

static void put_drive(snap_writer* w, const sn_drive* d)
{
	snap_put_u8(w, d->enabled ? 1 : 0);
	snap_put_u32(w, (uint32_t)d->type);
	snap_put_f64(w, d->stiffness);
	snap_put_f64(w, d->damping);
	snap_put_f64(w, d->target_position);
	snap_put_f64(w, d->target_velocity);
	snap_put_f64(w, d->max_force);
	snap_put_f64(w, d->max_velocity);
}

static void write_artic(snap_writer* w, const artic* a)
{
	snap_put_u8(w, a->fixed_base ? 1 : 0);
	snap_put_u8(w, a->midpoint ? 1 : 0);
	snap_put_f64(w, a->gravity_scale);
	snap_put_f64(w, a->max_correction_speed);
	snap_put_u64(w, a->user_data);
	snap_put_i32(w, a->link_count);
	put_transform(w, a->base_pose);
	snap_put_vec3(w, a->base_v);
	snap_put_vec3(w, a->base_w);
	snap_put_u8(w, a->asleep ? 1 : 0);
	snap_put_f64(w, a->sleep_time);
	snap_put_i32(w, a->sleep_group);
	for (int i = 0; i < a->link_count; ++i)
	{
		const artic_link* l = a->links + i;
		const artic_link_info* info = a->info + i;
		snap_put_i32(w, l->parent);
		snap_put_u32(w, l->type);
		put_transform(w, info->parent_frame);
		put_transform(w, info->child_frame);
		snap_put_f64(w, l->mass);
		snap_put_mat33(w, info->inertia);
		snap_put_vec3(w, info->com);
		snap_put_f64(w, l->joint_damping);
		snap_put_f64(w, l->joint_friction);
		snap_put_f64(w, l->armature);
		snap_put_f64(w, l->max_joint_velocity);
		snap_put_u64(w, info->user_data);
		snap_put_quat(w, a->sph[i]);
		put_sv6(w, a->link_force[i]);
		put_sv6(w, artic_incoming(a)[i]);
	}
	for (int d = 0; d < a->dof_count; ++d)
	{
		put_limit(w, a->limits + d);
		put_drive(w, a->drives + d);
		snap_put_f64(w, a->q[d]);
		snap_put_f64(w, a->qd[d]);
		for (int s = 0; s < ARTIC_WARM_SLOTS; ++s)
		{
			snap_put_f64(w, a->warm[d * ARTIC_WARM_SLOTS + s]);
		}
		snap_put_f64(w, a->joint_force[d]);
		snap_put_f64(w, a->effort[d]);
		// Dropped history is not written.
		snap_put_f64(w, a->free_history != ARTIC_FREE_NONE ? a->qdd_free[d] : 0.0);
		snap_put_f64(w, a->free_history == ARTIC_FREE_TWO ? a->qdd_prev[d] : 0.0);
	}
	snap_put_u8(w, a->has_inputs ? 1 : 0);
	snap_put_f64(w, a->step_dt);
	snap_put_u8(w, a->self_collision ? 1 : 0);
	snap_put_u8(w, a->free_history);
	put_sv6(w, a->free_history != ARTIC_FREE_NONE ? a->base_a_free : sv6_zero());
	put_sv6(w, a->free_history == ARTIC_FREE_TWO ? a->base_a_prev : sv6_zero());
}

static void write_mimic(snap_writer* w, const artic_mimic* m)
{
	snap_put_i32(w, m->artic);
	snap_put_i32(w, m->def.dof_count);
	for (int i = 0; i < SN_MIMIC_MAX_DOFS; ++i)
	{
		snap_put_i32(w, m->def.dofs[i]);
		snap_put_f64(w, m->def.gearing[i]);
	}
	snap_put_f64(w, m->def.offset);
	snap_put_f64(w, m->def.erp);
	snap_put_soft(w, m->def.soft);
	snap_put_f64(w, m->def.max_force);
	snap_put_u64(w, m->def.user_data);
	snap_put_f64(w, m->warm);
	snap_put_f64(w, m->force);
}

void artic_snapshot_write(snap_writer* w, const sn_world* world)
{
	const artic_store* s = world->artics;
	int high = s != NULL ? s->high : 0, mimic_high = s != NULL ? s->mimic_high : 0;
	snap_put_i32(w, high);
	snap_put_i32(w, s != NULL ? s->free : -1);
	for (int i = 0; i < high; ++i)
	{
		const artic* a = s->items + i;
		snap_put_u32(w, a->generation);
		snap_put_i32(w, a->next_free);
		snap_put_u8(w, a->live ? 1 : 0);
		if (a->live)
		{
			write_artic(w, a);
		}
	}
	snap_put_i32(w, mimic_high);
	snap_put_i32(w, s != NULL ? s->mimic_free : -1);
	for (int i = 0; i < mimic_high; ++i)
	{
		const artic_mimic* m = s->mimics + i;
		snap_put_u32(w, m->generation);
		snap_put_i32(w, m->next_free);
		snap_put_u8(w, m->live ? 1 : 0);
		if (m->live)
		{
			write_mimic(w, m);
		}
	}
}

// ---- reading ------------------------------------------------------------------------------------------

static sn_error bad(sn_world* world, const char* what, int slot)
{
	return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: articulation section: %s (slot %d)", what, slot);
}

static sn_transform get_transform(snap_reader* r)
{
	sn_transform t;
	t.p = snap_get_vec3(r);
	t.q = snap_get_quat(r);
	return t;
}

static sv6 get_sv6(snap_reader* r)
{
	sv6 v;
	v.w = snap_get_vec3(r);
	v.v = snap_get_vec3(r);
	return v;
}

static bool sv6_finite(sv6 v)
{
	return sn_vec3_is_finite(v.w) && sn_vec3_is_finite(v.v);
}

static bool unit_quat(sn_quat q)
{
	return sn_quat_is_finite(q) && fabs(sn_quat_length(q) - 1.0) < 1e-9;
}

// The state read after the def, laid over the built record.
typedef struct dof_state
{
	double q, qd, warm[ARTIC_WARM_SLOTS], joint_force, effort, qdd_free, qdd_prev;
} dof_state;

// Read one live articulation into a built record. links/dofs are scratch sized by the caller.
static sn_error read_artic(snap_reader* r, sn_world* world, int slot, artic* out)
{
	sn_articulation_def def = sn_default_articulation_def();
	uint8_t fixed = snap_get_u8(r);
	def.fixed_base = fixed == 1;
	uint8_t midpoint = snap_get_u8(r);
	def.midpoint_velocity_terms = midpoint == 1;
	def.gravity_scale = snap_get_f64(r);
	def.max_correction_speed = snap_get_f64(r);
	def.user_data = snap_get_u64(r);
	int32_t link_count = snap_get_i32(r);
	sn_transform base_pose = get_transform(r);
	sn_vec3 base_v = snap_get_vec3(r), base_w = snap_get_vec3(r);
	uint8_t asleep = snap_get_u8(r);
	double sleep_time = snap_get_f64(r);
	int32_t sleep_group = snap_get_i32(r);
	if (!r->ok || asleep > 1 || !(sleep_time >= 0.0 && sleep_time < INFINITY) || sleep_group < -1 ||
		(asleep == 1 && sleep_group < 0))
	{
		return bad(world, "articulation sleep state", slot);
	}
	// A link needs at least ~400 bytes in the section: the count is bounded by what is there.
	if (!r->ok || fixed > 1 || midpoint > 1 || link_count < 1 || link_count > SN_ARTICULATION_MAX_LINKS ||
		(size_t)link_count > r->size - r->at)
	{
		return bad(world, "articulation header", slot);
	}
	def.base_pose = base_pose;
	def.base_linear_velocity = base_v;
	def.base_angular_velocity = base_w;
	size_t links_bytes = (size_t)link_count * sizeof(sn_link_def);
	size_t extra_bytes = (size_t)link_count * (sizeof(sn_quat) + 2 * sizeof(sv6));
	size_t dofs_bytes = (size_t)link_count * 3 * sizeof(dof_state);
	unsigned char* scratch = memory_alloc(&world->memory, links_bytes + extra_bytes + dofs_bytes);
	if (scratch == NULL)
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for articulation slot %d", slot);
	}
	sn_link_def* links = (sn_link_def*)scratch;
	sn_quat* sph = (sn_quat*)(scratch + links_bytes);
	sv6* forces = (sv6*)(sph + link_count);
	sv6* incoming = forces + link_count;
	dof_state* dofs = (dof_state*)(scratch + links_bytes + extra_bytes);
	sn_error err = SN_ERR_OK;
	int dof_count = 0;
	for (int i = 0; i < link_count && err == SN_ERR_OK; ++i)
	{
		sn_link_def* l = links + i;
		*l = sn_default_link_def();
		l->parent = snap_get_i32(r);
		uint32_t type = snap_get_u32(r);
		l->joint_type = (sn_link_joint_type)(type <= SN_LINK_JOINT_SPHERICAL ? type : 99);
		l->parent_frame = get_transform(r);
		l->child_frame = get_transform(r);
		l->mass = snap_get_f64(r);
		l->inertia = snap_get_mat33(r);
		l->center_of_mass = snap_get_vec3(r);
		l->joint_damping = snap_get_f64(r);
		l->joint_friction = snap_get_f64(r);
		l->armature = snap_get_f64(r);
		l->max_joint_velocity = snap_get_f64(r);
		l->user_data = snap_get_u64(r);
		sph[i] = snap_get_quat(r);
		forces[i] = get_sv6(r);
		incoming[i] = get_sv6(r);
		if (!r->ok || type > SN_LINK_JOINT_SPHERICAL)
		{
			err = bad(world, "link truncated or of unknown joint type", slot);
		}
		else if (!unit_quat(sph[i]) || !sv6_finite(forces[i]) || !sv6_finite(incoming[i]))
		{
			err = bad(world, "link state not finite", slot);
		}
		dof_count += i == 0 ? 0 : (type == SN_LINK_JOINT_SPHERICAL ? 3 : (type == SN_LINK_JOINT_FIXED ? 0 : 1));
	}
	// Dofs in link order: limits, drives, and the state that goes with them.
	for (int i = 1, d = 0; i < link_count && err == SN_ERR_OK; ++i)
	{
		int nd =
			links[i].joint_type == SN_LINK_JOINT_SPHERICAL ? 3 : (links[i].joint_type == SN_LINK_JOINT_FIXED ? 0 : 1);
		for (int k = 0; k < nd && err == SN_ERR_OK; ++k, ++d)
		{
			sn_limit* lim = links[i].limit + k;
			uint8_t on = snap_get_u8(r);
			lim->enabled = on == 1;
			lim->lower = snap_get_f64(r);
			lim->upper = snap_get_f64(r);
			lim->soft = snap_get_soft(r);
			sn_drive* dr = links[i].drive + k;
			uint8_t drive_on = snap_get_u8(r);
			dr->enabled = drive_on == 1;
			uint32_t drive_type = snap_get_u32(r);
			dr->type = (sn_drive_type)(drive_type <= SN_DRIVE_ACCELERATION ? drive_type : 99);
			dr->stiffness = snap_get_f64(r);
			dr->damping = snap_get_f64(r);
			dr->target_position = snap_get_f64(r);
			dr->target_velocity = snap_get_f64(r);
			dr->max_force = snap_get_f64(r);
			dr->max_velocity = snap_get_f64(r);
			dof_state* st = dofs + d;
			st->q = snap_get_f64(r);
			st->qd = snap_get_f64(r);
			bool finite = isfinite(st->q) && isfinite(st->qd);
			for (int s = 0; s < ARTIC_WARM_SLOTS; ++s)
			{
				st->warm[s] = snap_get_f64(r);
				finite = finite && isfinite(st->warm[s]);
			}
			st->joint_force = snap_get_f64(r);
			st->effort = snap_get_f64(r);
			st->qdd_free = snap_get_f64(r);
			st->qdd_prev = snap_get_f64(r);
			finite = finite && isfinite(st->joint_force) && isfinite(st->effort) && isfinite(st->qdd_free) &&
				isfinite(st->qdd_prev);
			links[i].initial_position[k] = st->q;
			links[i].initial_velocity[k] = st->qd;
			if (!r->ok || on > 1 || drive_on > 1 || drive_type > SN_DRIVE_ACCELERATION)
			{
				err = bad(world, "dof truncated or malformed", slot);
			}
			else if (!finite)
			{
				err = bad(world, "dof state not finite", slot);
			}
		}
	}
	uint8_t inputs = snap_get_u8(r);
	double step_dt = snap_get_f64(r);
	uint8_t self_collision = snap_get_u8(r);
	def.self_collision = self_collision == 1;
	uint8_t free_history = snap_get_u8(r);
	sv6 base_a_free = get_sv6(r);
	sv6 base_a_prev = get_sv6(r);
	if (err == SN_ERR_OK &&
		(!r->ok || inputs > 1 || self_collision > 1 || free_history > ARTIC_FREE_TWO || !sv6_finite(base_a_free) ||
		 !sv6_finite(base_a_prev) || !(isfinite(step_dt) && step_dt >= 0.0)))
	{
		err = bad(world, "articulation trailer", slot);
	}
	if (err == SN_ERR_OK && (!unit_quat(base_pose.q) || !sn_vec3_is_finite(base_pose.p)))
	{
		err = bad(world, "base pose", slot);
	}
	// The model through creation's own checks; then the state over it.
	if (err == SN_ERR_OK)
	{
		err = artic_build(world, &def, links, link_count, out);
		if (err != SN_ERR_OK && err != SN_ERR_NO_MEMORY)
		{
			err = SN_ERR_BAD_SNAPSHOT; // keep the detail line artic_build wrote
		}
	}
	if (err == SN_ERR_OK)
	{
		artic* a = out;
		a->base_pose = base_pose;
		a->base_v = a->fixed_base ? sn_v3(0, 0, 0) : base_v;
		a->base_w = a->fixed_base ? sn_v3(0, 0, 0) : base_w;
		a->asleep = asleep == 1;
		a->sleep_time = sleep_time;
		a->sleep_group = sleep_group;
		for (int i = 0; i < link_count; ++i)
		{
			a->sph[i] = sph[i];
			a->link_force[i] = forces[i];
			a->incoming[i] = incoming[i];
		}
		for (int d = 0; d < dof_count; ++d)
		{
			a->q[d] = dofs[d].q;
			a->qd[d] = dofs[d].qd;
			memcpy(a->warm + d * ARTIC_WARM_SLOTS, dofs[d].warm, sizeof(dofs[d].warm));
			a->joint_force[d] = dofs[d].joint_force;
			a->effort[d] = dofs[d].effort;
			a->qdd_free[d] = dofs[d].qdd_free;
			a->qdd_prev[d] = dofs[d].qdd_prev;
			for (int s = 0; s < ARTIC_WARM_SLOTS; ++s)
			{
				a->warm_set = a->warm_set || dofs[d].warm[s] != 0.0;
			}
			a->effort_set = a->effort_set || dofs[d].effort != 0.0;
		}
		a->has_inputs = inputs == 1;
		a->step_dt = step_dt;
		a->free_history = free_history;
		// A fixed base has no acceleration.
		a->base_a_free = a->fixed_base ? sv6_zero() : base_a_free;
		a->base_a_prev = a->fixed_base ? sv6_zero() : base_a_prev;
		artic_update_kinematics(a);
	}
	memory_free(&world->memory, scratch, links_bytes + extra_bytes + dofs_bytes);
	return err;
}

static sn_error read_mimic(snap_reader* r, sn_world* world, int slot, artic_mimic* m)
{
	const artic_store* s = world->artics;
	sn_mimic_def* def = &m->def;
	*def = sn_default_mimic_def();
	m->artic = snap_get_i32(r);
	def->dof_count = snap_get_i32(r);
	for (int i = 0; i < SN_MIMIC_MAX_DOFS; ++i)
	{
		def->dofs[i] = snap_get_i32(r);
		def->gearing[i] = snap_get_f64(r);
	}
	def->offset = snap_get_f64(r);
	def->erp = snap_get_f64(r);
	def->soft = snap_get_soft(r);
	def->max_force = snap_get_f64(r);
	def->user_data = snap_get_u64(r);
	m->warm = snap_get_f64(r);
	m->force = snap_get_f64(r);
	if (!r->ok || m->artic < 0 || m->artic >= s->high || !s->items[m->artic].live)
	{
		return bad(world, "mimic joint truncated or on no articulation", slot);
	}
	artic* a = s->items + m->artic;
	def->articulation.index1 = m->artic + 1;
	def->articulation.generation = world_id_generation(world, a->generation);
	if (def->gearing[0] != 1.0 || !isfinite(m->warm) || !isfinite(m->force))
	{
		return bad(world, "mimic joint state", slot);
	}
	for (int i = def->dof_count > 0 && def->dof_count <= SN_MIMIC_MAX_DOFS ? def->dof_count : 0; i < SN_MIMIC_MAX_DOFS;
		 ++i)
	{
		if (def->dofs[i] != 0 || def->gearing[i] != 0.0)
		{
			return bad(world, "mimic joint unused entries", slot);
		}
	}
	artic* checked;
	if (artic_mimic_check(world, def, &checked) != SN_ERR_OK)
	{
		return SN_ERR_BAD_SNAPSHOT; // keep the detail line of the check
	}
	return SN_ERR_OK;
}

// Free lists must thread exactly the dead slots.
static bool free_list_ok(int32_t head, int high, const void* items, size_t stride, size_t next_offset,
						 size_t live_offset, sn_world* world)
{
	size_t bytes = (size_t)(high > 0 ? high : 1) * (sizeof(int32_t) + sizeof(bool));
	void* scratch = memory_alloc(&world->memory, bytes);
	if (scratch == NULL)
	{
		return false;
	}
	int32_t* next = scratch;
	bool* live = (bool*)(next + (high > 0 ? high : 1));
	const unsigned char* p = items;
	for (int i = 0; i < high; ++i)
	{
		memcpy(next + i, p + (size_t)i * stride + next_offset, sizeof(int32_t));
		memcpy(live + i, p + (size_t)i * stride + live_offset, sizeof(bool));
	}
	bool ok = snap_free_list_valid(head, next, live, high);
	memory_free(&world->memory, scratch, bytes);
	return ok;
}

sn_error artic_snapshot_read(snap_reader* r, sn_world* world)
{
	int32_t high = snap_get_i32(r);
	int32_t free_head = snap_get_i32(r);
	if (!r->ok || high < 0 || high > MAX_SLOTS || (size_t)high > r->size)
	{
		return bad(world, "articulation pool size", -1);
	}
	artic_store* s = artic_store_get(world);
	if (s == NULL)
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for articulations");
	}
	void* p = s->items;
	if (high > 0 && !memory_reserve(&world->memory, &p, &s->capacity, high, sizeof(artic)))
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for %d articulations", high);
	}
	s->items = p;
	s->free = free_head;
	for (int i = 0; i < high; ++i)
	{
		artic* a = s->items + i;
		memset(a, 0, sizeof(*a));
		s->high = i + 1; // slots so far are destroyable on failure
		uint32_t generation = snap_get_u32(r);
		int32_t next_free = snap_get_i32(r);
		uint8_t live = snap_get_u8(r);
		if (!r->ok || live > 1 || generation == 0)
		{
			return bad(world, "articulation slot header", i);
		}
		if (live == 1)
		{
			sn_error err = read_artic(r, world, i, a);
			if (err != SN_ERR_OK)
			{
				memset(a, 0, sizeof(*a));
				return err;
			}
			s->count += 1;
		}
		a->generation = generation;
		a->next_free = next_free;
		a->live = live == 1;
	}
	if (!free_list_ok(free_head, high, s->items, sizeof(artic), offsetof(artic, next_free), offsetof(artic, live),
					  world))
	{
		return bad(world, "articulation free list", -1);
	}

	int32_t mimic_high = snap_get_i32(r);
	int32_t mimic_free = snap_get_i32(r);
	if (!r->ok || mimic_high < 0 || mimic_high > MAX_SLOTS || (size_t)mimic_high > r->size)
	{
		return bad(world, "mimic pool size", -1);
	}
	p = s->mimics;
	if (mimic_high > 0 && !memory_reserve(&world->memory, &p, &s->mimic_capacity, mimic_high, sizeof(artic_mimic)))
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for %d mimic joints", mimic_high);
	}
	s->mimics = p;
	s->mimic_high = mimic_high;
	s->mimic_free = mimic_free;
	for (int i = 0; i < mimic_high; ++i)
	{
		artic_mimic* m = s->mimics + i;
		memset(m, 0, sizeof(*m));
		m->generation = snap_get_u32(r);
		m->next_free = snap_get_i32(r);
		uint8_t live = snap_get_u8(r);
		if (!r->ok || live > 1 || m->generation == 0)
		{
			return bad(world, "mimic slot header", i);
		}
		if (live == 1)
		{
			sn_error err = read_mimic(r, world, i, m);
			if (err != SN_ERR_OK)
			{
				return err;
			}
			m->live = true;
			s->items[m->artic].mimic_count += 1;
			s->mimic_count += 1;
		}
	}
	if (!free_list_ok(mimic_free, mimic_high, s->mimics, sizeof(artic_mimic), offsetof(artic_mimic, next_free),
					  offsetof(artic_mimic, live), world))
	{
		return bad(world, "mimic free list", -1);
	}
	// Row storage for the restored model (mimic joints included).
	for (int i = 0; i < high; ++i)
	{
		if (s->items[i].live)
		{
			sn_error err = artic_reserve_rows(world, s->items + i, NULL);
			if (err != SN_ERR_OK)
			{
				return err == SN_ERR_NO_MEMORY ? err : SN_ERR_BAD_SNAPSHOT;
			}
		}
	}
	return SN_ERR_OK;
}
