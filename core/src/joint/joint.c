// Joints: the pool, the shared creation and validation path, frame kinematics (derived in joint.h),
// the type dispatch for building rows, and the run-time setters and getters.
#include "joint/joint.h"
#include "island.h"

#include "artic/artic.h"

#include "body.h"
#include "math/mathx.h"
#include "world.h"

#include "sinew/body.h"
#include "sinew/joint.h"

#include <math.h>
#include <string.h>

joint* joint_get(const sn_world* world, sn_joint_id id)
{
	if (world == NULL || id.index1 <= 0 || id.index1 > world->joint_high)
	{
		return NULL;
	}
	joint* j = world->joints + (id.index1 - 1);
	return (j->live && world_id_generation(world, j->generation) == id.generation) ? j : NULL;
}

sn_joint_id joint_id_of(const sn_world* world, int32_t index)
{
	sn_joint_id id = { index + 1, world_id_generation(world, world->joints[index].generation) };
	return id;
}

bool sn_joint_is_valid(const sn_world* world, sn_joint_id id)
{
	return joint_get(world, id) != NULL;
}

sn_joint_base sn_default_joint_base(void)
{
	sn_joint_base base;
	memset(&base, 0, sizeof(base));
	base.frame_a = sn_transform_identity();
	base.frame_b = sn_transform_identity();
	base.lock_soft = sn_soft_rigid();
	base.break_force = INFINITY;
	base.break_torque = INFINITY;
	base.enabled = true;
	return base;
}

sn_joint_axis joint_moving_axis(sn_limit limit, sn_motor motor, sn_spring spring)
{
	sn_joint_axis axis;
	memset(&axis, 0, sizeof(axis));
	axis.mode = limit.enabled ? SN_AXIS_LIMITED : SN_AXIS_FREE;
	axis.lower = limit.lower;
	axis.upper = limit.upper;
	axis.limit_soft = limit.soft;
	axis.motor = motor;
	axis.spring = spring;
	return axis;
}

// ---- validation -------------------------------------------------------------------------------------

sn_error joint_check_soft(sn_world* world, const char* what, sn_soft soft)
{
	sn_error err = soft_check(soft);
	switch (err)
	{
		case SN_ERR_OK:
			return SN_ERR_OK;
		case SN_ERR_NOT_FINITE:
			return world_fail(world, err, "%s: softness values must be finite", what);
		case SN_ERR_NEGATIVE_VALUE:
			return world_fail(
				world, err,
				"%s: stiffness, damping, frequency, damping ratio, compliance and damping time must be >= 0", what);
		default:
			return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: unknown softness kind %d", what, (int)soft.kind);
	}
}

sn_error joint_check_limit(sn_world* world, const char* what, sn_limit limit, bool angular)
{
	if (!limit.enabled)
	{
		return SN_ERR_OK;
	}
	if (!isfinite(limit.lower) || !isfinite(limit.upper))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: limits must be finite", what);
	}
	if (limit.lower > limit.upper)
	{
		return world_fail(world, SN_ERR_LIMITS_ORDER, "%s: lower limit %g is above upper limit %g", what, limit.lower,
						  limit.upper);
	}
	if (angular && (limit.lower < -SN_PI || limit.upper > SN_PI))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: angular limits must lie in [-pi, pi] rad, got [%g, %g]",
						  what, limit.lower, limit.upper);
	}
	return joint_check_soft(world, what, limit.soft);
}

static sn_error check_force_bound(sn_world* world, const char* what, double max_force)
{
	if (isnan(max_force))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: max_force is NaN", what);
	}
	if (max_force < 0.0)
	{
		return world_fail(world, SN_ERR_NEGATIVE_VALUE, "%s: max_force must be >= 0, got %g", what, max_force);
	}
	return SN_ERR_OK;
}

sn_error joint_check_motor(sn_world* world, const char* what, sn_motor motor)
{
	if (!motor.enabled)
	{
		return SN_ERR_OK;
	}
	if (!isfinite(motor.speed))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: motor speed must be finite", what);
	}
	return check_force_bound(world, what, motor.max_force);
}

sn_error joint_check_spring(sn_world* world, const char* what, sn_spring spring)
{
	if (!spring.enabled)
	{
		return SN_ERR_OK;
	}
	if (!isfinite(spring.target))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: spring target must be finite", what);
	}
	sn_error err = check_force_bound(world, what, spring.max_force);
	return err != SN_ERR_OK ? err : joint_check_soft(world, what, spring.soft);
}

static sn_error check_frame(sn_world* world, const char* what, sn_transform* frame)
{
	if (!sn_vec3_is_finite(frame->p) || !sn_quat_is_finite(frame->q))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s must be finite", what);
	}
	if (sn_quat_length(frame->q) < 1e-9)
	{
		return world_fail(world, SN_ERR_ZERO_AXIS, "%s rotation quaternion has zero length", what);
	}
	if (!(sn_length(frame->p) <= SN_MAX_OFFSET))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT,
						  "%s offset (%g, %g, %g) m is farther than SN_MAX_OFFSET (%g m) from the body", what,
						  frame->p.x, frame->p.y, frame->p.z, SN_MAX_OFFSET);
	}
	frame->q = sn_quat_normalize(frame->q);
	return SN_ERR_OK;
}

static sn_error check_body_ref(sn_world* world, sn_body_id id, const char* side, int32_t* index)
{
	if (sn_body_id_is_null(id))
	{
		*index = -1;
		return SN_ERR_OK;
	}
	const body* b = body_get(world, id);
	if (b == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "create joint: %s is not a live body of this world", side);
	}
	*index = id.index1 - 1;
	return SN_ERR_OK;
}

static bool axis_is_angular(int axis)
{
	return axis >= SN_AXIS_RX;
}

// Validate one axis configuration of a joint record.
static sn_error check_axis(sn_world* world, const sn_joint_axis* ax, int axis)
{
	static const char* names[SN_AXIS_COUNT] = { "axis X", "axis Y", "axis Z", "axis RX", "axis RY", "axis RZ" };
	if (ax->mode != SN_AXIS_LOCKED && ax->mode != SN_AXIS_FREE && ax->mode != SN_AXIS_LIMITED)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create joint: %s has unknown mode %d", names[axis],
						  (int)ax->mode);
	}
	sn_limit limit = { ax->mode == SN_AXIS_LIMITED, ax->lower, ax->upper, ax->limit_soft };
	sn_error err = joint_check_limit(world, names[axis], limit, axis_is_angular(axis));
	if (err == SN_ERR_OK)
	{
		err = joint_check_motor(world, names[axis], ax->motor);
	}
	if (err == SN_ERR_OK)
	{
		err = joint_check_spring(world, names[axis], ax->spring);
	}
	return err;
}

int joint_max_rows(const joint* j)
{
	if (j->type == SN_JOINT_DISTANCE)
	{
		return 3;
	}
	int n = j->type == SN_JOINT_SPHERICAL ? 1 : 0;
	for (int a = 0; a < SN_AXIS_COUNT; ++a)
	{
		if (j->movable & (1u << a))
		{
			n += 4;
		}
		else if (j->axes[a].mode == SN_AXIS_LOCKED)
		{
			n += 1;
		}
	}
	return n;
}

// A joint's bodies wake when it changes (island.c).
static void joint_wake(sn_world* world, const joint* j)
{
	island_wake_body(world, j->body_a);
	island_wake_body(world, j->body_b);
}

void joint_count_links(sn_world* world, joint* j, int delta)
{
	const int32_t ends[2] = { j->body_a, j->body_b };
	j->on_link = false;
	for (int s = 0; s < 2; ++s)
	{
		if (ends[s] >= 0 && world->bodies[ends[s]].type == SN_BODY_LINK)
		{
			world->artics->items[world->bodies[ends[s]].artic].link_joint_count += delta;
			j->on_link = true;
		}
	}
}

sn_error joint_create(sn_world* world, sn_joint_type type, const sn_joint_base* base, const joint* config,
					  sn_joint_id* out_id)
{
	if (base == NULL || out_id == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create joint: def and out_id must not be NULL");
	}
	int32_t ia = -1, ib = -1;
	sn_error err = check_body_ref(world, base->body_a, "body_a", &ia);
	if (err == SN_ERR_OK)
	{
		err = check_body_ref(world, base->body_b, "body_b", &ib);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (ia == ib)
	{
		return world_fail(world, SN_ERR_SELF_JOINT,
						  ia < 0 ? "create joint: both bodies are the world"
								 : "create joint: body_a and body_b are the same body");
	}
	sn_transform fa = base->frame_a, fb = base->frame_b;
	err = check_frame(world, "create joint: frame_a", &fa);
	if (err == SN_ERR_OK)
	{
		err = check_frame(world, "create joint: frame_b", &fb);
	}
	if (err == SN_ERR_OK)
	{
		err = joint_check_soft(world, "create joint: lock_soft", base->lock_soft);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (isnan(base->break_force) || isnan(base->break_torque))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "create joint: break thresholds must not be NaN");
	}
	if (base->break_force < 0.0 || base->break_torque < 0.0)
	{
		return world_fail(world, SN_ERR_NEGATIVE_VALUE, "create joint: break thresholds must be >= 0");
	}
	// A joint on a link: its articulation's rows get room for every dof and a floating base's velocity
	// (the joint's rows act through them, constraint/link_row.h).
	const int32_t ends[2] = { ia, ib };
	for (int s = 0; s < 2; ++s)
	{
		if (ends[s] < 0 || world->bodies[ends[s]].type != SN_BODY_LINK)
		{
			continue;
		}
		artic* a = world->artics->items + world->bodies[ends[s]].artic;
		if (a->link_joint_count == 0)
		{
			a->link_joint_count = 1;
			err = artic_reserve_rows(world, a, NULL);
			a->link_joint_count = 0;
			if (err != SN_ERR_OK)
			{
				return err;
			}
		}
	}
	// A distance joint has checked its one range itself (its max may be INFINITY, which the generic
	// axis rule refuses) and has no motors or springs on its axes.
	for (int a = 0; a < SN_AXIS_COUNT && type != SN_JOINT_DISTANCE; ++a)
	{
		err = check_axis(world, config->axes + a, a);
		if (err != SN_ERR_OK)
		{
			return err;
		}
	}

	int32_t index = world->joint_free;
	if (index < 0)
	{
		void* p = world->joints;
		if (!memory_reserve(&world->memory, &p, &world->joint_capacity, world->joint_high + 1, sizeof(joint)))
		{
			return world_fail(world, SN_ERR_NO_MEMORY, "create joint: out of memory");
		}
		world->joints = p;
		index = world->joint_high++;
		world->joints[index].generation = 1;
	}
	else
	{
		world->joint_free = world->joints[index].next_free;
	}
	joint* j = world->joints + index;
	uint32_t generation = j->generation;
	*j = *config;
	j->generation = generation;
	j->next_free = -1;
	j->live = true;
	j->type = type;
	j->body_a = ia;
	j->body_b = ib;
	j->frame_a = fa;
	j->frame_b = fb;
	j->lock_soft = base->lock_soft;
	j->break_force = base->break_force;
	j->break_torque = base->break_torque;
	j->enabled = base->enabled;
	j->broken = false;
	j->collide_connected = base->collide_connected;
	j->user_data = base->user_data;
	memset(j->warm, 0, sizeof(j->warm));
	j->force = sn_v3(0, 0, 0);
	j->torque = sn_v3(0, 0, 0);
	j->max_rows = joint_max_rows(j);
	world->row_budget += j->max_rows;
	world->joint_count += 1;
	joint_count_links(world, j, 1);
	joint_wake(world, j);
	contact_joints_changed(world, ia, ib);
	*out_id = joint_id_of(world, index);
	return SN_ERR_OK;
}

sn_error sn_destroy_joint(sn_world* world, sn_joint_id id)
{
	joint* j = joint_get(world, id);
	if (j == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "destroy joint: invalid joint id");
	}
	world->row_budget -= j->max_rows;
	joint_count_links(world, j, -1);
	joint_wake(world, j);
	contact_joints_changed(world, j->body_a, j->body_b);
	j->live = false;
	j->generation += 1;
	if (j->generation == 0)
	{
		j->generation = 1;
	}
	j->next_free = world->joint_free;
	world->joint_free = id.index1 - 1;
	world->joint_count -= 1;
	return SN_ERR_OK;
}

// ---- kinematics -------------------------------------------------------------------------------------

static void side_pose(const sn_world* world, int32_t body_index, sn_transform* pose, sn_vec3* com)
{
	if (body_index < 0)
	{
		*pose = sn_transform_identity();
		*com = sn_v3(0, 0, 0);
		return;
	}
	const body* b = world->bodies + body_index;
	if (b->type == SN_BODY_LINK)
	{
		body_motion m = body_motion_of(world, body_index); // a link's pose is its articulation's
		*pose = m.pose;
		*com = m.com;
		return;
	}
	*pose = body_pose(b);
	*com = b->com;
}

bool joint_state_finite(const sn_world* world, const joint* j)
{
	sn_transform ta, tb;
	sn_vec3 ca, cb;
	side_pose(world, j->body_a, &ta, &ca);
	side_pose(world, j->body_b, &tb, &cb);
	sn_vec3 pa = sn_transform_point(ta, j->frame_a.p);
	sn_vec3 pb = sn_transform_point(tb, j->frame_b.p);
	return sn_vec3_is_finite(sn_sub(pb, pa)) && sn_vec3_is_finite(j->force) && sn_vec3_is_finite(j->torque);
}

void joint_frame_compute(const sn_world* world, const joint* j, joint_frame* f)
{
	sn_transform ta, tb;
	side_pose(world, j->body_a, &ta, &f->ca);
	side_pose(world, j->body_b, &tb, &f->cb);
	sn_transform fa = sn_transform_mul(ta, j->frame_a);
	sn_transform fb = sn_transform_mul(tb, j->frame_b);
	f->pa = fa.p;
	f->pb = fb.p;
	if (j->body_a < 0)
	{
		f->ca = f->pa;
	}
	if (j->body_b < 0)
	{
		f->cb = f->pb;
	}
	f->d = sn_sub(f->pb, f->pa);
	f->axis[0] = sn_rotate(fa.q, sn_v3(1, 0, 0));
	f->axis[1] = sn_rotate(fa.q, sn_v3(0, 1, 0));
	f->axis[2] = sn_rotate(fa.q, sn_v3(0, 0, 1));
	for (int k = 0; k < 3; ++k)
	{
		f->coord[k] = sn_dot(f->d, f->axis[k]);
	}

	sn_quat q = sn_quat_mul_conj_a(fa.q, fb.q);
	if (q.w < 0.0)
	{
		q.x = -q.x;
		q.y = -q.y;
		q.z = -q.z;
		q.w = -q.w;
	}
	f->qrel = q;
	double r = sqrt(q.w * q.w + q.x * q.x);
	if (r < 1e-12)
	{
		r = 1e-12; // swing of pi: twist is undefined; keep the numbers finite
	}
	double yp = (q.w * q.y - q.x * q.z) / r;
	double zp = (q.w * q.z + q.x * q.y) / r;
	double sigma = sqrt(q.y * q.y + q.z * q.z);
	double theta = 2.0 * atan2(q.x, q.w);
	double phi = 2.0 * atan2(sigma, r);
	double cps = 1.0, sps = 0.0;
	if (sigma > 0.0)
	{
		cps = yp / sigma;
		sps = zp / sigma;
	}
	double phi_over_sigma = sigma > 0.0 ? phi / sigma : 2.0 / r;
	double kappa = 0.5 * phi_over_sigma * (sigma * sigma - r * r) / r;
	f->phi = phi;
	f->psi = atan2(sps, cps);
	f->coord[SN_AXIS_RX] = theta;
	f->coord[SN_AXIS_RY] = phi * cps;
	f->coord[SN_AXIS_RZ] = phi * sps;

	// Gradients in frame A (see the derivation in joint.h), then to the world.
	sn_vec3 g_theta = sn_v3(1.0, zp / r, -yp / r);
	sn_vec3 g_sy = sn_v3(-phi * sps, cps * cps - kappa * sps * sps, cps * sps * (1.0 + kappa));
	sn_vec3 g_sz = sn_v3(phi * cps, sps * cps * (1.0 + kappa), sps * sps - kappa * cps * cps);
	sn_vec3 g_phi = sn_v3(0.0, cps, sps);
	sn_vec3 g_psi = sn_v3(0.0, 0.0, 0.0);
	if (sigma > 0.0)
	{
		double kp = (sigma * sigma - r * r) / (2.0 * r * sigma);
		g_psi = sn_v3(1.0, kp * sps, -kp * cps);
	}
	sn_mat33 rfa = { f->axis[0], f->axis[1], f->axis[2] };
	f->jac[0] = sn_mat33_mul_v(rfa, g_theta);
	f->jac[1] = sn_mat33_mul_v(rfa, g_sy);
	f->jac[2] = sn_mat33_mul_v(rfa, g_sz);
	f->jac_phi = sn_mat33_mul_v(rfa, g_phi);
	f->jac_psi = sn_mat33_mul_v(rfa, g_psi);
}

void joint_axis_jacobian(const joint_frame* f, int axis, sn_vec3* lin, sn_vec3* ang_a, sn_vec3* ang_b)
{
	if (axis < 3)
	{
		sn_vec3 a = f->axis[axis];
		*lin = a;
		*ang_a = sn_neg(sn_cross(sn_sub(f->pb, f->ca), a));
		*ang_b = sn_cross(sn_sub(f->pb, f->cb), a);
	}
	else
	{
		sn_vec3 g = f->jac[axis - 3];
		*lin = sn_v3(0, 0, 0);
		*ang_a = sn_neg(g);
		*ang_b = g;
	}
}

int joint_build_rows(const sn_world* world, const joint* j, const joint_frame* f, row_builder* b)
{
	(void)world;
	int first = b->count;
	switch (j->type)
	{
		case SN_JOINT_FIXED:
		case SN_JOINT_HINGE:
		case SN_JOINT_PRISMATIC:
		case SN_JOINT_CYLINDRICAL:
		case SN_JOINT_SIX_AXIS:
			axes_joint_build_rows(j, f, b);
			break;
		case SN_JOINT_SPHERICAL:
			spherical_joint_build_rows(j, f, b);
			break;
		case SN_JOINT_DISTANCE:
			distance_joint_build_rows(j, f, b);
			break;
		case SN_JOINT_TYPE_COUNT:
			break;
	}
	if (b->project_free_rows)
	{
		builder_project_free_rows(b, first);
	}
	return b->count - first;
}

void builder_begin_joint(const sn_world* world, row_builder* b, int32_t index)
{
	const joint* j = world->joints + index;
	b->joint_index = index;
	b->sa = body_solver_index(world, j->body_a);
	b->sb = body_solver_index(world, j->body_b);
	b->ma = world->solver_infos[b->sa].inv_mass;
	b->mb = world->solver_infos[b->sb].inv_mass;
	b->inv_ia = world->solver_infos[b->sa].inv_inertia;
	b->inv_ib = world->solver_infos[b->sb].inv_inertia;
	b->warm = j->warm;
	b->links = b->world != NULL && link_row_sides_of(world, j->body_a, j->body_b, &b->sides);
}

// ---- getters ----------------------------------------------------------------------------------------

#define JOINT_GET_OR_(world, id, fallback)                                                                             \
	const joint* j = joint_get(world, id);                                                                             \
	if (j == NULL)                                                                                                     \
		return fallback;

#define JOINT_SET_OR_FAIL_(world, id, what)                                                                            \
	joint* j = joint_get(world, id);                                                                                   \
	if (j == NULL)                                                                                                     \
		return world_fail(world, SN_ERR_INVALID_ID, "%s: invalid joint id", what);

static sn_body_id body_id_at(const sn_world* world, int32_t index)
{
	sn_body_id id = { 0, 0 };
	if (index >= 0)
	{
		id.index1 = index + 1;
		id.generation = world_id_generation(world, world->bodies[index].generation);
	}
	return id;
}

sn_joint_type sn_joint_get_type(const sn_world* world, sn_joint_id id)
{
	JOINT_GET_OR_(world, id, SN_JOINT_TYPE_COUNT);
	return j->type;
}

sn_body_id sn_joint_get_body_a(const sn_world* world, sn_joint_id id)
{
	JOINT_GET_OR_(world, id, body_id_at(world, -1));
	return body_id_at(world, j->body_a);
}

sn_body_id sn_joint_get_body_b(const sn_world* world, sn_joint_id id)
{
	JOINT_GET_OR_(world, id, body_id_at(world, -1));
	return body_id_at(world, j->body_b);
}

sn_transform sn_joint_get_frame_a(const sn_world* world, sn_joint_id id)
{
	JOINT_GET_OR_(world, id, sn_transform_identity());
	return j->frame_a;
}

sn_transform sn_joint_get_frame_b(const sn_world* world, sn_joint_id id)
{
	JOINT_GET_OR_(world, id, sn_transform_identity());
	return j->frame_b;
}

uint64_t sn_joint_get_user_data(const sn_world* world, sn_joint_id id)
{
	JOINT_GET_OR_(world, id, 0);
	return j->user_data;
}

bool sn_joint_is_enabled(const sn_world* world, sn_joint_id id)
{
	JOINT_GET_OR_(world, id, false);
	return j->enabled;
}

bool sn_joint_is_broken(const sn_world* world, sn_joint_id id)
{
	JOINT_GET_OR_(world, id, false);
	return j->broken;
}

sn_error sn_joint_get_reaction(const sn_world* world, sn_joint_id id, sn_vec3* force, sn_vec3* torque)
{
	const joint* j = joint_get(world, id);
	if (j == NULL)
	{
		return SN_ERR_INVALID_ID;
	}
	if (force != NULL)
	{
		*force = j->force;
	}
	if (torque != NULL)
	{
		*torque = j->torque;
	}
	return SN_ERR_OK;
}

static bool valid_axis(sn_axis axis)
{
	return (int)axis >= 0 && axis < SN_AXIS_COUNT;
}

double sn_joint_get_coordinate(const sn_world* world, sn_joint_id id, sn_axis axis)
{
	JOINT_GET_OR_(world, id, 0.0);
	if (!valid_axis(axis))
	{
		return 0.0;
	}
	joint_frame f;
	joint_frame_compute(world, j, &f);
	if (j->type == SN_JOINT_DISTANCE && axis == SN_AXIS_X)
	{
		return sn_length(f.d);
	}
	return f.coord[axis];
}

static void side_velocity(const sn_world* world, int32_t index, sn_vec3* v, sn_vec3* w)
{
	if (index < 0)
	{
		*v = sn_v3(0, 0, 0);
		*w = sn_v3(0, 0, 0);
		return;
	}
	*v = world->bodies[index].v;
	*w = world->bodies[index].w;
}

double sn_joint_get_coordinate_speed(const sn_world* world, sn_joint_id id, sn_axis axis)
{
	JOINT_GET_OR_(world, id, 0.0);
	if (!valid_axis(axis))
	{
		return 0.0;
	}
	joint_frame f;
	joint_frame_compute(world, j, &f);
	sn_vec3 va, wa, vb, wb;
	side_velocity(world, j->body_a, &va, &wa);
	side_velocity(world, j->body_b, &vb, &wb);
	sn_vec3 lin, ang_a, ang_b;
	if (j->type == SN_JOINT_DISTANCE && axis == SN_AXIS_X)
	{
		lin = sn_normalize(f.d);
		ang_a = sn_neg(sn_cross(sn_sub(f.pa, f.ca), lin));
		ang_b = sn_cross(sn_sub(f.pb, f.cb), lin);
	}
	else
	{
		joint_axis_jacobian(&f, axis, &lin, &ang_a, &ang_b);
	}
	return sn_dot(lin, sn_sub(vb, va)) + sn_dot(ang_a, wa) + sn_dot(ang_b, wb);
}

// ---- setters ----------------------------------------------------------------------------------------

sn_error sn_joint_set_enabled(sn_world* world, sn_joint_id id, bool enabled)
{
	JOINT_SET_OR_FAIL_(world, id, "set joint enabled");
	j->enabled = enabled;
	if (enabled)
	{
		j->broken = false;
	}
	memset(j->warm, 0, sizeof(j->warm));
	joint_wake(world, j);
	return SN_ERR_OK;
}

sn_error sn_joint_set_collide_connected(sn_world* world, sn_joint_id id, bool collide)
{
	JOINT_SET_OR_FAIL_(world, id, "set collide connected");
	if (j->collide_connected != collide)
	{
		j->collide_connected = collide;
		contact_joints_changed(world, j->body_a, j->body_b);
	}
	return SN_ERR_OK;
}

bool sn_joint_get_collide_connected(const sn_world* world, sn_joint_id id)
{
	const joint* j = joint_get(world, id);
	return j != NULL && j->collide_connected;
}

sn_error sn_joint_set_break_thresholds(sn_world* world, sn_joint_id id, double break_force, double break_torque)
{
	JOINT_SET_OR_FAIL_(world, id, "set break thresholds");
	if (isnan(break_force) || isnan(break_torque))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "set break thresholds: must not be NaN");
	}
	if (break_force < 0.0 || break_torque < 0.0)
	{
		return world_fail(world, SN_ERR_NEGATIVE_VALUE, "set break thresholds: must be >= 0");
	}
	j->break_force = break_force;
	j->break_torque = break_torque;
	return SN_ERR_OK;
}

sn_error sn_joint_set_lock_soft(sn_world* world, sn_joint_id id, sn_soft soft)
{
	JOINT_SET_OR_FAIL_(world, id, "set lock softness");
	sn_error err = joint_check_soft(world, "set lock softness", soft);
	if (err == SN_ERR_OK)
	{
		j->lock_soft = soft;
	}
	if (err == SN_ERR_OK)
	{
		joint_wake(world, j);
	}
	return err;
}

sn_soft sn_joint_get_lock_soft(const sn_world* world, sn_joint_id id)
{
	JOINT_GET_OR_(world, id, sn_soft_rigid());
	return j->lock_soft;
}

// The axis record a run-time control call may change, or NULL (with the error recorded).
static sn_joint_axis* movable_axis(sn_world* world, joint* j, sn_axis axis, const char* what)
{
	if (!valid_axis(axis))
	{
		world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: unknown axis %d", what, (int)axis);
		return NULL;
	}
	if ((j->movable & (1u << axis)) == 0)
	{
		world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: axis %d does not move in a %s joint", what, (int)axis,
				   sn_joint_type_name(j->type));
		return NULL;
	}
	return j->axes + axis;
}

sn_error sn_joint_set_limit(sn_world* world, sn_joint_id id, sn_axis axis, sn_limit limit)
{
	JOINT_SET_OR_FAIL_(world, id, "set limit");
	sn_joint_axis* ax = movable_axis(world, j, axis, "set limit");
	if (ax == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	sn_error err = j->type == SN_JOINT_DISTANCE ? distance_joint_check_limit(world, "set limit", limit)
												: joint_check_limit(world, "set limit", limit, axis_is_angular(axis));
	if (err != SN_ERR_OK)
	{
		return err;
	}
	ax->mode = limit.enabled ? SN_AXIS_LIMITED : SN_AXIS_FREE;
	ax->lower = limit.lower;
	ax->upper = limit.upper;
	ax->limit_soft = limit.soft;
	joint_wake(world, j);
	return SN_ERR_OK;
}

sn_error sn_joint_set_motor(sn_world* world, sn_joint_id id, sn_axis axis, sn_motor motor)
{
	JOINT_SET_OR_FAIL_(world, id, "set motor");
	sn_joint_axis* ax = movable_axis(world, j, axis, "set motor");
	if (ax == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (j->type == SN_JOINT_SPHERICAL || j->type == SN_JOINT_DISTANCE)
	{
		return world_fail(world, SN_ERR_UNSUPPORTED, "set motor: %s joints have no motor", sn_joint_type_name(j->type));
	}
	sn_error err = joint_check_motor(world, "set motor", motor);
	if (err == SN_ERR_OK)
	{
		ax->motor = motor;
	}
	if (err == SN_ERR_OK)
	{
		joint_wake(world, j);
	}
	return err;
}

sn_error sn_joint_set_spring(sn_world* world, sn_joint_id id, sn_axis axis, sn_spring spring)
{
	JOINT_SET_OR_FAIL_(world, id, "set spring");
	sn_joint_axis* ax = movable_axis(world, j, axis, "set spring");
	if (ax == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (j->type == SN_JOINT_SPHERICAL || j->type == SN_JOINT_DISTANCE)
	{
		return world_fail(world, SN_ERR_UNSUPPORTED, "set spring: use the %s joint's own spring calls",
						  sn_joint_type_name(j->type));
	}
	sn_error err = joint_check_spring(world, "set spring", spring);
	if (err == SN_ERR_OK)
	{
		ax->spring = spring;
	}
	if (err == SN_ERR_OK)
	{
		joint_wake(world, j);
	}
	return err;
}

sn_error sn_joint_set_motor_speed(sn_world* world, sn_joint_id id, sn_axis axis, double speed)
{
	JOINT_SET_OR_FAIL_(world, id, "set motor speed");
	sn_joint_axis* ax = movable_axis(world, j, axis, "set motor speed");
	if (ax == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (!isfinite(speed))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "set motor speed: speed must be finite");
	}
	ax->motor.speed = speed;
	joint_wake(world, j);
	return SN_ERR_OK;
}

sn_error sn_joint_set_drive_target(sn_world* world, sn_joint_id id, sn_axis axis, double target)
{
	JOINT_SET_OR_FAIL_(world, id, "set drive target");
	sn_joint_axis* ax = movable_axis(world, j, axis, "set drive target");
	if (ax == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (!isfinite(target))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "set drive target: target must be finite");
	}
	ax->spring.target = target;
	joint_wake(world, j);
	return SN_ERR_OK;
}

// ---- batch control inputs ----------------------------------------------------------------------------

// One entry of a batch, checked as sn_joint_set_drive_target and sn_joint_set_motor_speed check it (same
// errors), with the entry's index in the detail line. Changes nothing.
static sn_error check_joint_target(sn_world* world, const sn_joint_target* t, int entry)
{
	joint* j = joint_get(world, t->joint);
	if (j == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ID, "set joint targets: entry %d: invalid joint id", entry);
	}
	if (!valid_axis(t->axis))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "set joint targets: entry %d: unknown axis %d", entry,
						  (int)t->axis);
	}
	if ((j->movable & (1u << t->axis)) == 0)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT,
						  "set joint targets: entry %d: axis %d does not move in a %s joint", entry, (int)t->axis,
						  sn_joint_type_name(j->type));
	}
	if (!isfinite(t->target))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "set joint targets: entry %d: target must be finite", entry);
	}
	if (t->has_motor_speed && !isfinite(t->motor_speed))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "set joint targets: entry %d: motor speed must be finite", entry);
	}
	return SN_ERR_OK;
}

sn_error sn_world_check_joint_targets(sn_world* world, const sn_joint_target* targets, int count)
{
	if (world == NULL)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (count < 0 || (count > 0 && targets == NULL))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "set joint targets: count must be >= 0 and targets given");
	}
	for (int i = 0; i < count; ++i)
	{
		sn_error err = check_joint_target(world, targets + i, i);
		if (err != SN_ERR_OK)
		{
			return err;
		}
	}
	return SN_ERR_OK;
}

sn_error sn_world_set_joint_targets(sn_world* world, const sn_joint_target* targets, int count)
{
	sn_error err = sn_world_check_joint_targets(world, targets, count);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	// Every entry is valid, and setting one changes no other's validity: apply in order, so a later entry
	// on the same joint and axis wins, as the single setters called in order would leave it.
	for (int i = 0; i < count; ++i)
	{
		const sn_joint_target* t = targets + i;
		sn_joint_axis* ax = joint_get(world, t->joint)->axes + t->axis;
		ax->spring.target = t->target;
		if (t->has_motor_speed)
		{
			ax->motor.speed = t->motor_speed;
		}
		joint_wake(world, joint_get(world, t->joint));
	}
	return SN_ERR_OK;
}

sn_limit sn_joint_get_limit(const sn_world* world, sn_joint_id id, sn_axis axis)
{
	sn_limit none = { false, 0.0, 0.0, sn_soft_rigid() };
	JOINT_GET_OR_(world, id, none);
	if (!valid_axis(axis))
	{
		return none;
	}
	const sn_joint_axis* ax = j->axes + axis;
	sn_limit limit = { ax->mode == SN_AXIS_LIMITED, ax->lower, ax->upper, ax->limit_soft };
	return limit;
}

sn_motor sn_joint_get_motor(const sn_world* world, sn_joint_id id, sn_axis axis)
{
	sn_motor none = { false, 0.0, 0.0 };
	JOINT_GET_OR_(world, id, none);
	return valid_axis(axis) ? j->axes[axis].motor : none;
}

sn_spring sn_joint_get_spring(const sn_world* world, sn_joint_id id, sn_axis axis)
{
	sn_spring none = { false, 0.0, sn_soft_rigid(), 0.0 };
	JOINT_GET_OR_(world, id, none);
	return valid_axis(axis) ? j->axes[axis].spring : none;
}
