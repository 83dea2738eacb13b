// World snapshots: write the whole world, and build a new world from bytes that are validated field by
// field (the bytes come from outside). Restoring reproduces every pool slot (generations, free lists) so
// ids stay valid and iteration order, hence every bit of later steps, is the same as in the original.
//
// Layout (snap_bytes.h writes the fields: integers little-endian, doubles as their IEEE-754 bit patterns):
//   header   "SNWSNAP1" (8 bytes), u32 version (SN_SNAPSHOT_VERSION), u32 section count,
//            u64 payload size, u64 FNV-1a hash of the payload
//   payload  sections, each: u32 tag, u64 length, then `length` bytes
// Sections, in order: WRLD (settings and clock), BODY (the body pool, dead slots included so ids and
// free lists survive; a link's body is its articulation slot and link index, checked against the
// articulations once they are read), JONT (the joint pool with warm starts), ARTC (articulations and
// mimic joints, artic/snapshot.c), SHAP (shapes, their broadphase boxes, exclusions) and CONT (the pair
// cache with its manifolds and warm starts), both contact/snapshot.c. Modules with state of their own add
// a section after these. A reader rejects unknown tags, short or long sections, and any field that a def
// or setter would reject.
#include "snap_bytes.h"

#include "hash.h"

#include "artic/artic.h"
#include "body.h"
#include "joint/joint.h"
#include "math/mathx.h"
#include "solver/solver.h"
#include "world.h"

#include "sinew/world.h"

#include <math.h>
#include <string.h>

static const char snapshot_magic[8] = { 'S', 'N', 'W', 'S', 'N', 'A', 'P', '1' };

enum
{
	HEADER_SIZE = 8 + 4 + 4 + 8 + 8,
	TAG_WORLD = 0x444c5257,         // "WRLD"
	TAG_BODIES = 0x59444f42,        // "BODY"
	TAG_JOINTS = 0x544e4f4a,        // "JONT"
	TAG_ARTICULATIONS = 0x43545241, // "ARTC" (artic/snapshot.c)
	TAG_SHAPES = 0x50414853,        // "SHAP" (contact/snapshot.c)
	TAG_CONTACTS = 0x544e4f43,      // "CONT" (contact/snapshot.c)
	SECTION_COUNT = 6,
	MAX_POOL_SLOTS = 1 << 26
};

// ---- sections ---------------------------------------------------------------------------------------

static void write_world(snap_writer* w, const sn_world* world)
{
	const sn_world_def* d = &world->def;
	snap_put_vec3(w, d->gravity);
	snap_put_f64(w, d->time_step);
	snap_put_u32(w, (uint32_t)d->solver);
	snap_put_i32(w, d->position_iterations);
	snap_put_i32(w, d->velocity_iterations);
	snap_put_i32(w, d->substeps);
	snap_put_f64(w, d->erp);
	snap_put_f64(w, d->implicit_alpha);
	snap_put_f64(w, d->implicit_beta);
	snap_put_f64(w, d->warm_start);
	snap_put_f64(w, d->divergence_speed);
	snap_put_u32(w, d->id_tag);
	snap_put_f64(w, d->contact.slop);
	snap_put_f64(w, d->contact.max_push_speed);
	snap_put_f64(w, d->contact.restitution_threshold);
	snap_put_u32(w, (uint32_t)d->contact.friction_mix);
	snap_put_u32(w, (uint32_t)d->contact.restitution_mix);
	snap_put_u8(w, d->sleep.enabled ? 1 : 0);
	snap_put_f64(w, d->sleep.linear_speed);
	snap_put_f64(w, d->sleep.angular_speed);
	snap_put_f64(w, d->sleep.time_to_sleep);
	snap_put_f64(w, world->time);
	snap_put_u64(w, world->step_count);
	snap_put_u8(w, world->diverged ? 1 : 0);
}

static void write_bodies(snap_writer* w, const sn_world* world)
{
	snap_put_i32(w, world->body_high);
	snap_put_i32(w, world->body_free);
	for (int i = 0; i < world->body_high; ++i)
	{
		const body* b = world->bodies + i;
		snap_put_u32(w, b->generation);
		snap_put_i32(w, b->next_free);
		snap_put_u8(w, b->live ? 1 : 0);
		if (!b->live)
		{
			continue;
		}
		snap_put_u32(w, (uint32_t)b->type);
		if (b->type == SN_BODY_LINK)
		{
			// Everything else about a link is its articulation's (ARTC).
			snap_put_i32(w, b->artic);
			snap_put_i32(w, b->link);
			continue;
		}
		snap_put_f64(w, b->mass);
		snap_put_mat33(w, b->inertia);
		snap_put_vec3(w, b->local_com);
		snap_put_f64(w, b->linear_damping);
		snap_put_f64(w, b->angular_damping);
		snap_put_f64(w, b->gravity_scale);
		snap_put_vec3(w, b->com);
		snap_put_quat(w, b->q);
		snap_put_vec3(w, b->v);
		snap_put_vec3(w, b->w);
		snap_put_vec3(w, b->force);
		snap_put_vec3(w, b->torque);
		snap_put_u64(w, b->user_data);
		snap_put_u8(w, b->asleep ? 1 : 0);
		snap_put_f64(w, b->sleep_time);
		snap_put_i32(w, b->sleep_group);
	}
}

static void put_axis(snap_writer* w, const sn_joint_axis* a)
{
	snap_put_u32(w, (uint32_t)a->mode);
	snap_put_f64(w, a->lower);
	snap_put_f64(w, a->upper);
	snap_put_soft(w, a->limit_soft);
	snap_put_u8(w, a->motor.enabled ? 1 : 0);
	snap_put_f64(w, a->motor.speed);
	snap_put_f64(w, a->motor.max_force);
	snap_put_u8(w, a->spring.enabled ? 1 : 0);
	snap_put_f64(w, a->spring.target);
	snap_put_soft(w, a->spring.soft);
	snap_put_f64(w, a->spring.max_force);
}

static void write_joints(snap_writer* w, const sn_world* world)
{
	snap_put_i32(w, world->joint_high);
	snap_put_i32(w, world->joint_free);
	for (int i = 0; i < world->joint_high; ++i)
	{
		const joint* j = world->joints + i;
		snap_put_u32(w, j->generation);
		snap_put_i32(w, j->next_free);
		snap_put_u8(w, j->live ? 1 : 0);
		if (!j->live)
		{
			continue;
		}
		snap_put_u32(w, (uint32_t)j->type);
		snap_put_i32(w, j->body_a);
		snap_put_i32(w, j->body_b);
		snap_put_vec3(w, j->frame_a.p);
		snap_put_quat(w, j->frame_a.q);
		snap_put_vec3(w, j->frame_b.p);
		snap_put_quat(w, j->frame_b.q);
		snap_put_soft(w, j->lock_soft);
		snap_put_f64(w, j->break_force);
		snap_put_f64(w, j->break_torque);
		snap_put_u8(w, j->enabled ? 1 : 0);
		snap_put_u8(w, j->broken ? 1 : 0);
		snap_put_u8(w, j->collide_connected ? 1 : 0);
		snap_put_u64(w, j->user_data);
		for (int a = 0; a < SN_AXIS_COUNT; ++a)
		{
			put_axis(w, j->axes + a);
		}
		snap_put_u8(w, j->movable);
		snap_put_u8(w, j->cone.enabled ? 1 : 0);
		snap_put_f64(w, j->cone.y_angle);
		snap_put_f64(w, j->cone.z_angle);
		snap_put_soft(w, j->cone.soft);
		snap_put_f64(w, j->length);
		snap_put_u8(w, j->spring_enabled ? 1 : 0);
		snap_put_soft(w, j->spring);
		for (int s = 0; s < JOINT_SLOTS; ++s)
		{
			snap_put_f64(w, j->warm[s]);
		}
		snap_put_vec3(w, j->force);
		snap_put_vec3(w, j->torque);
	}
}

// Write one section: tag, length, payload (the length is known from a counting pass).
static void write_section(snap_writer* w, uint32_t tag, const sn_world* world,
						  void (*body_fn)(snap_writer*, const sn_world*))
{
	snap_writer count = { NULL, 0, 0, false };
	body_fn(&count, world);
	snap_put_u32(w, tag);
	snap_put_u64(w, count.size);
	body_fn(w, world);
}

static void write_payload(snap_writer* w, const sn_world* world)
{
	write_section(w, TAG_WORLD, world, write_world);
	write_section(w, TAG_BODIES, world, write_bodies);
	write_section(w, TAG_JOINTS, world, write_joints);
	write_section(w, TAG_ARTICULATIONS, world, artic_snapshot_write);
	write_section(w, TAG_SHAPES, world, contact_snapshot_write_shapes);
	write_section(w, TAG_CONTACTS, world, contact_snapshot_write_pairs);
}

size_t sn_world_snapshot_size(const sn_world* world)
{
	snap_writer count = { NULL, 0, 0, false };
	write_payload(&count, world);
	return HEADER_SIZE + count.size;
}

sn_error sn_world_snapshot_write(const sn_world* world, void* buffer, size_t capacity, size_t* written)
{
	size_t size = sn_world_snapshot_size(world);
	if (written != NULL)
	{
		*written = size;
	}
	if (buffer == NULL || capacity < size)
	{
		return SN_ERR_CAPACITY;
	}
	uint8_t* out = buffer;
	snap_writer w = { out + HEADER_SIZE, capacity - HEADER_SIZE, 0, false };
	write_payload(&w, world);
	if (w.overflow)
	{
		return SN_ERR_CAPACITY;
	}
	snap_writer h = { out, HEADER_SIZE, 0, false };
	snap_put_bytes(&h, snapshot_magic, sizeof(snapshot_magic));
	snap_put_u32(&h, SN_SNAPSHOT_VERSION);
	snap_put_u32(&h, SECTION_COUNT);
	snap_put_u64(&h, w.size);
	snap_put_u64(&h, hash_bytes(HASH_SEED, out + HEADER_SIZE, w.size));
	return SN_ERR_OK;
}

// ---- reading ----------------------------------------------------------------------------------------

// Enter a section: check its tag and hand back a reader bounded to its payload.
static bool enter_section(snap_reader* r, uint32_t tag, snap_reader* section)
{
	uint32_t got = snap_get_u32(r);
	uint64_t length = snap_get_u64(r);
	if (!r->ok || got != tag || length > r->size - r->at)
	{
		return false;
	}
	section->data = r->data + r->at;
	section->size = (size_t)length;
	section->at = 0;
	section->ok = true;
	r->at += (size_t)length;
	return true;
}

static sn_error bad(sn_world* world, const char* what)
{
	return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: %s", what);
}

static bool finite_nonneg(double x)
{
	return isfinite(x) && x >= 0.0;
}

static bool unit_quat(sn_quat q)
{
	return sn_quat_is_finite(q) && fabs(sn_quat_length(q) - 1.0) < 1e-6;
}

static sn_error read_bodies(snap_reader* r, sn_world* world)
{
	int32_t high = snap_get_i32(r);
	int32_t free_head = snap_get_i32(r);
	if (!r->ok || high < 0 || high > MAX_POOL_SLOTS || (size_t)high > r->size)
	{
		return bad(world, "body pool size out of range");
	}
	void* p = world->bodies;
	if (high > 0 && !memory_reserve(&world->memory, &p, &world->body_capacity, high, sizeof(body)))
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for %d bodies", high);
	}
	world->bodies = p;
	world->body_high = high;
	world->body_free = free_head;
	for (int i = 0; i < high; ++i)
	{
		body* b = world->bodies + i;
		memset(b, 0, sizeof(*b));
		b->generation = snap_get_u32(r);
		b->next_free = snap_get_i32(r);
		uint8_t live = snap_get_u8(r);
		if (!r->ok || live > 1 || b->generation == 0)
		{
			return bad(world, "body slot header");
		}
		b->live = live == 1;
		b->artic = -1;
		b->link = -1;
		b->shape_head = -1;
		if (!b->live)
		{
			continue;
		}
		b->type = (sn_body_type)snap_get_u32(r);
		if (b->type == SN_BODY_LINK)
		{
			b->artic = snap_get_i32(r);
			b->link = snap_get_i32(r);
			b->q = sn_quat_identity();
			if (!r->ok || b->artic < 0 || b->link < 0)
			{
				return bad(world, "link body record");
			}
			continue; // checked against the articulations once they are read (link_bodies_valid)
		}
		b->mass = snap_get_f64(r);
		b->inertia = snap_get_mat33(r);
		b->local_com = snap_get_vec3(r);
		b->linear_damping = snap_get_f64(r);
		b->angular_damping = snap_get_f64(r);
		b->gravity_scale = snap_get_f64(r);
		b->com = snap_get_vec3(r);
		b->q = snap_get_quat(r);
		b->v = snap_get_vec3(r);
		b->w = snap_get_vec3(r);
		b->force = snap_get_vec3(r);
		b->torque = snap_get_vec3(r);
		b->user_data = snap_get_u64(r);
		uint8_t asleep = snap_get_u8(r);
		b->sleep_time = snap_get_f64(r);
		b->sleep_group = snap_get_i32(r);
		if (!r->ok)
		{
			return bad(world, "body record truncated");
		}
		b->asleep = asleep == 1;
		if (asleep > 1 || !finite_nonneg(b->sleep_time) || b->sleep_group < -1 ||
			(b->asleep && (b->type != SN_BODY_DYNAMIC || b->sleep_group < 0)))
		{
			return bad(world, "body sleep state");
		}
		bool dynamic = b->type == SN_BODY_DYNAMIC;
		if (b->type != SN_BODY_STATIC && b->type != SN_BODY_KINEMATIC && !dynamic)
		{
			return bad(world, "unknown body type");
		}
		if (dynamic && !(isfinite(b->mass) && b->mass > 0.0 && mat33_is_spd(b->inertia)))
		{
			return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: body slot %d has an invalid mass or inertia", i);
		}
		if (!finite_nonneg(b->linear_damping) || !finite_nonneg(b->angular_damping) || !isfinite(b->gravity_scale) ||
			!sn_vec3_is_finite(b->local_com) || !unit_quat(b->q) || !sn_vec3_is_finite(b->force) ||
			!sn_vec3_is_finite(b->torque))
		{
			return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: body slot %d has an invalid field", i);
		}
		// Positions and velocities may be non-finite only in a world that had diverged.
		if (!world->diverged && (!sn_vec3_is_finite(b->com) || !sn_vec3_is_finite(b->v) || !sn_vec3_is_finite(b->w)))
		{
			return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: body slot %d state is not finite", i);
		}
		if (b->type == SN_BODY_DYNAMIC)
		{
			b->inv_mass = 1.0 / b->mass;
			b->inv_inertia = mat33_inverse(b->inertia);
		}
		else
		{
			b->inv_mass = 0.0;
			b->inv_inertia = sn_mat33_zero();
		}
		world->body_count += 1;
	}
	return SN_ERR_OK;
}

// Link bodies against the restored articulations: each names a live articulation and one of its links,
// and every link of every articulation has exactly one body.
static sn_error link_bodies_valid(sn_world* world)
{
	const artic_store* s = world->artics;
	for (int i = 0; i < world->body_high; ++i)
	{
		body* b = world->bodies + i;
		if (!b->live || b->type != SN_BODY_LINK)
		{
			continue;
		}
		if (s == NULL || b->artic >= s->high || !s->items[b->artic].live || b->link >= s->items[b->artic].link_count ||
			s->items[b->artic].link_body[b->link] != -1)
		{
			return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: body slot %d is no link of an articulation", i);
		}
		s->items[b->artic].link_body[b->link] = i;
	}
	for (int a = 0; s != NULL && a < s->high; ++a)
	{
		for (int l = 0; s->items[a].live && l < s->items[a].link_count; ++l)
		{
			if (s->items[a].link_body[l] < 0)
			{
				return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: link %d of articulation slot %d has no body",
								  l, a);
			}
		}
	}
	return SN_ERR_OK;
}

static sn_axis_mode axis_mode_or_invalid(uint32_t mode, bool* ok)
{
	if (mode > SN_AXIS_LIMITED)
	{
		*ok = false;
	}
	return (sn_axis_mode)mode;
}

static sn_joint_axis get_axis(snap_reader* r, bool* ok)
{
	sn_joint_axis a;
	a.mode = axis_mode_or_invalid(snap_get_u32(r), ok);
	a.lower = snap_get_f64(r);
	a.upper = snap_get_f64(r);
	a.limit_soft = snap_get_soft(r);
	uint8_t motor_on = snap_get_u8(r);
	a.motor.enabled = motor_on == 1;
	a.motor.speed = snap_get_f64(r);
	a.motor.max_force = snap_get_f64(r);
	uint8_t spring_on = snap_get_u8(r);
	a.spring.enabled = spring_on == 1;
	a.spring.target = snap_get_f64(r);
	a.spring.soft = snap_get_soft(r);
	a.spring.max_force = snap_get_f64(r);
	if (motor_on > 1 || spring_on > 1)
	{
		*ok = false;
	}
	return a;
}

// Every joint field through the same checks creation uses.
static sn_error check_joint(sn_world* world, const joint* j, int index)
{
	if ((int)j->type < 0 || j->type >= SN_JOINT_TYPE_COUNT)
	{
		return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d has an unknown type", index);
	}
	int32_t ends[2] = { j->body_a, j->body_b };
	for (int s = 0; s < 2; ++s)
	{
		if (ends[s] < -1 || ends[s] >= world->body_high || (ends[s] >= 0 && !world->bodies[ends[s]].live))
		{
			return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d names a missing body", index);
		}
		if (ends[s] >= 0 && world->bodies[ends[s]].type == SN_BODY_LINK)
		{
			return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d is on a link's body", index);
		}
	}
	if (j->body_a == j->body_b)
	{
		return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d connects a body to itself", index);
	}
	if (!sn_vec3_is_finite(j->frame_a.p) || !sn_vec3_is_finite(j->frame_b.p) || !unit_quat(j->frame_a.q) ||
		!unit_quat(j->frame_b.q) || isnan(j->break_force) || isnan(j->break_torque) || j->break_force < 0.0 ||
		j->break_torque < 0.0 || soft_check(j->lock_soft) != SN_ERR_OK)
	{
		return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d has an invalid frame or threshold",
						  index);
	}
	for (int a = 0; a < SN_AXIS_COUNT; ++a)
	{
		const sn_joint_axis* ax = j->axes + a;
		sn_limit limit = { ax->mode == SN_AXIS_LIMITED, ax->lower, ax->upper, ax->limit_soft };
		bool angular = a >= SN_AXIS_RX && j->type != SN_JOINT_DISTANCE;
		bool limit_ok = j->type == SN_JOINT_DISTANCE
			? (!limit.enabled ||
			   (isfinite(limit.lower) && !isnan(limit.upper) && limit.lower >= 0.0 && limit.lower <= limit.upper &&
				soft_check(limit.soft) == SN_ERR_OK))
			: joint_check_limit(world, "snapshot", limit, angular) == SN_ERR_OK;
		if (!limit_ok || joint_check_motor(world, "snapshot", ax->motor) != SN_ERR_OK ||
			joint_check_spring(world, "snapshot", ax->spring) != SN_ERR_OK)
		{
			return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d axis %d is invalid", index, a);
		}
		if (ax->mode == SN_AXIS_LOCKED && (j->movable & (1u << a)))
		{
			return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d axis %d is locked and movable",
							  index, a);
		}
	}
	if ((j->movable & ~0x3fu) != 0 ||
		(j->cone.enabled &&
		 !(j->cone.y_angle > 0.0 && j->cone.y_angle < SN_PI && j->cone.z_angle > 0.0 && j->cone.z_angle < SN_PI &&
		   soft_check(j->cone.soft) == SN_ERR_OK)))
	{
		return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d has an invalid cone or axis mask",
						  index);
	}
	if (j->type == SN_JOINT_DISTANCE &&
		(!(isfinite(j->length) && j->length > 0.0) || soft_check(j->spring) != SN_ERR_OK ||
		 (j->spring_enabled && j->spring.kind == SN_SOFT_RIGID)))
	{
		return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d has an invalid length or spring", index);
	}
	for (int s = 0; s < JOINT_SLOTS; ++s)
	{
		if (!isfinite(j->warm[s]))
		{
			return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d has a non-finite warm start", index);
		}
	}
	if (!sn_vec3_is_finite(j->force) || !sn_vec3_is_finite(j->torque))
	{
		return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d has a non-finite force", index);
	}
	return SN_ERR_OK;
}

static sn_error read_joints(snap_reader* r, sn_world* world)
{
	int32_t high = snap_get_i32(r);
	int32_t free_head = snap_get_i32(r);
	if (!r->ok || high < 0 || high > MAX_POOL_SLOTS || (size_t)high > r->size)
	{
		return bad(world, "joint pool size out of range");
	}
	void* p = world->joints;
	if (high > 0 && !memory_reserve(&world->memory, &p, &world->joint_capacity, high, sizeof(joint)))
	{
		return world_fail(world, SN_ERR_NO_MEMORY, "snapshot: out of memory for %d joints", high);
	}
	world->joints = p;
	world->joint_high = high;
	world->joint_free = free_head;
	for (int i = 0; i < high; ++i)
	{
		joint* j = world->joints + i;
		memset(j, 0, sizeof(*j));
		j->generation = snap_get_u32(r);
		j->next_free = snap_get_i32(r);
		uint8_t live = snap_get_u8(r);
		if (!r->ok || live > 1 || j->generation == 0)
		{
			return bad(world, "joint slot header");
		}
		j->live = live == 1;
		if (!j->live)
		{
			continue;
		}
		bool ok = true;
		j->type = (sn_joint_type)snap_get_u32(r);
		j->body_a = snap_get_i32(r);
		j->body_b = snap_get_i32(r);
		j->frame_a.p = snap_get_vec3(r);
		j->frame_a.q = snap_get_quat(r);
		j->frame_b.p = snap_get_vec3(r);
		j->frame_b.q = snap_get_quat(r);
		j->lock_soft = snap_get_soft(r);
		j->break_force = snap_get_f64(r);
		j->break_torque = snap_get_f64(r);
		uint8_t enabled = snap_get_u8(r), broken = snap_get_u8(r), collide = snap_get_u8(r);
		j->enabled = enabled == 1;
		j->broken = broken == 1;
		j->collide_connected = collide == 1;
		j->user_data = snap_get_u64(r);
		for (int a = 0; a < SN_AXIS_COUNT; ++a)
		{
			j->axes[a] = get_axis(r, &ok);
		}
		j->movable = snap_get_u8(r);
		uint8_t cone_on = snap_get_u8(r);
		j->cone.enabled = cone_on == 1;
		j->cone.y_angle = snap_get_f64(r);
		j->cone.z_angle = snap_get_f64(r);
		j->cone.soft = snap_get_soft(r);
		j->length = snap_get_f64(r);
		uint8_t spring_on = snap_get_u8(r);
		j->spring_enabled = spring_on == 1;
		j->spring = snap_get_soft(r);
		for (int s = 0; s < JOINT_SLOTS; ++s)
		{
			j->warm[s] = snap_get_f64(r);
		}
		j->force = snap_get_vec3(r);
		j->torque = snap_get_vec3(r);
		if (!r->ok || !ok || enabled > 1 || broken > 1 || collide > 1 || cone_on > 1 || spring_on > 1)
		{
			return world_fail(world, SN_ERR_BAD_SNAPSHOT, "snapshot: joint slot %d is truncated or malformed", i);
		}
		sn_error err = check_joint(world, j, i);
		if (err != SN_ERR_OK)
		{
			return err;
		}
		j->max_rows = joint_max_rows(j);
		world->row_budget += j->max_rows;
		world->joint_count += 1;
		world->contacts.joint_pairs_dirty = true;
	}
	return SN_ERR_OK;
}

// Free lists must thread exactly the dead slots.
static bool pools_consistent(sn_world* world)
{
	int n = world->body_high > world->joint_high ? world->body_high : world->joint_high;
	size_t bytes = (size_t)(n > 0 ? n : 1) * (sizeof(int32_t) + sizeof(bool));
	void* scratch = memory_alloc(&world->memory, bytes);
	if (scratch == NULL)
	{
		return false;
	}
	int32_t* next = scratch;
	bool* live = (bool*)(next + (n > 0 ? n : 1));
	for (int i = 0; i < world->body_high; ++i)
	{
		next[i] = world->bodies[i].next_free;
		live[i] = world->bodies[i].live;
	}
	bool ok = snap_free_list_valid(world->body_free, next, live, world->body_high);
	for (int i = 0; ok && i < world->joint_high; ++i)
	{
		next[i] = world->joints[i].next_free;
		live[i] = world->joints[i].live;
	}
	ok = ok && snap_free_list_valid(world->joint_free, next, live, world->joint_high);
	memory_free(&world->memory, scratch, bytes);
	return ok;
}

static sn_error read_world_settings(snap_reader* r, sn_world_def* def, double* time, uint64_t* steps, bool* diverged)
{
	def->gravity = snap_get_vec3(r);
	def->time_step = snap_get_f64(r);
	def->solver = (sn_solver)snap_get_u32(r);
	def->position_iterations = snap_get_i32(r);
	def->velocity_iterations = snap_get_i32(r);
	def->substeps = snap_get_i32(r);
	def->erp = snap_get_f64(r);
	def->implicit_alpha = snap_get_f64(r);
	def->implicit_beta = snap_get_f64(r);
	def->warm_start = snap_get_f64(r);
	def->divergence_speed = snap_get_f64(r);
	def->id_tag = snap_get_u32(r);
	def->contact.slop = snap_get_f64(r);
	def->contact.max_push_speed = snap_get_f64(r);
	def->contact.restitution_threshold = snap_get_f64(r);
	def->contact.friction_mix = (sn_mix_rule)snap_get_u32(r);
	def->contact.restitution_mix = (sn_mix_rule)snap_get_u32(r);
	uint8_t sleep_enabled = snap_get_u8(r);
	def->sleep.enabled = sleep_enabled == 1;
	def->sleep.linear_speed = snap_get_f64(r);
	def->sleep.angular_speed = snap_get_f64(r);
	def->sleep.time_to_sleep = snap_get_f64(r);
	*time = snap_get_f64(r);
	*steps = snap_get_u64(r);
	uint8_t d = snap_get_u8(r);
	*diverged = d == 1;
	if (!r->ok || r->at != r->size || d > 1 || sleep_enabled > 1 || !isfinite(*time) || *time < 0.0)
	{
		return SN_ERR_BAD_SNAPSHOT;
	}
	return sn_world_def_check(def, NULL, 0) == SN_ERR_OK ? SN_ERR_OK : SN_ERR_BAD_SNAPSHOT;
}

uint32_t sn_snapshot_version(const void* data, size_t size)
{
	if (data == NULL || size < HEADER_SIZE || memcmp(data, snapshot_magic, sizeof(snapshot_magic)) != 0)
	{
		return 0;
	}
	snap_reader r = { data, size, sizeof(snapshot_magic), true };
	return snap_get_u32(&r);
}

// Maximal joints on links: counted on their articulations, whose rows get room for them (as creating
// them does).
static sn_error count_link_joints(sn_world* world)
{
	for (int i = 0; i < world->joint_high; ++i)
	{
		if (world->joints[i].live)
		{
			joint_count_links(world, world->joints + i, 1);
		}
	}
	for (int i = 0; world->artics != NULL && i < world->artics->high; ++i)
	{
		artic* a = world->artics->items + i;
		if (a->live && a->link_joint_count > 0)
		{
			sn_error err = artic_reserve_rows(world, a, NULL);
			if (err != SN_ERR_OK)
			{
				return err;
			}
		}
	}
	return SN_ERR_OK;
}

sn_error sn_world_create_from_snapshot(const void* data, size_t size, const sn_allocator* allocator,
									   sn_world** out_world)
{
	if (data == NULL || out_world == NULL || size < HEADER_SIZE)
	{
		return SN_ERR_BAD_SNAPSHOT;
	}
	const uint8_t* bytes = data;
	snap_reader r = { bytes, size, 0, true };
	if (memcmp(bytes, snapshot_magic, sizeof(snapshot_magic)) != 0)
	{
		return SN_ERR_BAD_SNAPSHOT;
	}
	r.at = sizeof(snapshot_magic);
	uint32_t version = snap_get_u32(&r);
	uint32_t sections = snap_get_u32(&r);
	uint64_t payload = snap_get_u64(&r);
	uint64_t hash = snap_get_u64(&r);
	if (version != SN_SNAPSHOT_VERSION || sections != SECTION_COUNT || payload != size - HEADER_SIZE ||
		hash != hash_bytes(HASH_SEED, bytes + HEADER_SIZE, (size_t)payload))
	{
		return SN_ERR_BAD_SNAPSHOT;
	}

	snap_reader section;
	sn_world_def def = sn_default_world_def();
	if (allocator != NULL)
	{
		def.allocator = *allocator;
	}
	double time = 0.0;
	uint64_t steps = 0;
	bool diverged = false;
	if (!enter_section(&r, TAG_WORLD, &section) ||
		read_world_settings(&section, &def, &time, &steps, &diverged) != SN_ERR_OK)
	{
		return SN_ERR_BAD_SNAPSHOT;
	}
	sn_world* world;
	sn_error err = sn_world_create(&def, &world);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	world->time = time;
	world->step_count = steps;
	world->diverged = diverged;
	err = SN_ERR_BAD_SNAPSHOT;
	if (enter_section(&r, TAG_BODIES, &section))
	{
		err = read_bodies(&section, world);
		if (err == SN_ERR_OK && section.at != section.size)
		{
			err = SN_ERR_BAD_SNAPSHOT;
		}
	}
	if (err == SN_ERR_OK)
	{
		err = SN_ERR_BAD_SNAPSHOT;
		if (enter_section(&r, TAG_JOINTS, &section))
		{
			err = read_joints(&section, world);
			if (err == SN_ERR_OK && section.at != section.size)
			{
				err = SN_ERR_BAD_SNAPSHOT;
			}
		}
	}
	if (err == SN_ERR_OK)
	{
		err = SN_ERR_BAD_SNAPSHOT;
		if (enter_section(&r, TAG_ARTICULATIONS, &section))
		{
			err = artic_snapshot_read(&section, world);
			if (err == SN_ERR_OK && section.at != section.size)
			{
				err = SN_ERR_BAD_SNAPSHOT;
			}
		}
	}
	if (err == SN_ERR_OK)
	{
		err = link_bodies_valid(world);
	}
	if (err == SN_ERR_OK)
	{
		err = count_link_joints(world);
	}
	if (err == SN_ERR_OK)
	{
		err = SN_ERR_BAD_SNAPSHOT;
		if (enter_section(&r, TAG_SHAPES, &section))
		{
			err = contact_snapshot_read_shapes(&section, world);
			if (err == SN_ERR_OK && section.at != section.size)
			{
				err = SN_ERR_BAD_SNAPSHOT;
			}
		}
	}
	if (err == SN_ERR_OK)
	{
		err = SN_ERR_BAD_SNAPSHOT;
		if (enter_section(&r, TAG_CONTACTS, &section))
		{
			err = contact_snapshot_read_pairs(&section, world);
			if (err == SN_ERR_OK && section.at != section.size)
			{
				err = SN_ERR_BAD_SNAPSHOT;
			}
		}
	}
	if (err == SN_ERR_OK && (r.at != r.size || !pools_consistent(world)))
	{
		err = SN_ERR_BAD_SNAPSHOT;
	}
	if (err != SN_ERR_OK)
	{
		sn_world_destroy(world);
		return err;
	}
	*out_world = world;
	return SN_ERR_OK;
}
