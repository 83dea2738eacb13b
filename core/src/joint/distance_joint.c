// Distance joint (a rigid coupling, as between two cars of a train): C = |pB - pA| - length along
// n = (pB - pA) / |pB - pA|.
//   dC/dt = n . (vB + wB x rB - vA - wA x rA) = n . vB + (rB x n) . wB - n . vA - (rA x n) . wA
// so lin = n, ang_a = -(rA x n), ang_b = rB x n (each angular term acts on its own body's omega).
// Without a spring the row is a rigid rod. With a spring it is soft around `length`, and the limit adds
// unilateral rows C = L - min >= 0 and C = max - L >= 0.
#include "joint/joint.h"
#include "world.h"

#include "sinew/joint.h"

#include <math.h>
#include <string.h>

sn_distance_joint_def sn_default_distance_joint_def(void)
{
	sn_distance_joint_def def;
	memset(&def, 0, sizeof(def));
	def.base = sn_default_joint_base();
	def.length = 1.0;
	def.spring = sn_soft_stiffness(0.0, 0.0);
	def.limit.lower = 0.0;
	def.limit.upper = INFINITY;
	def.limit.soft = sn_soft_rigid();
	return def;
}

static sn_error check_length(sn_world* world, const char* what, double length)
{
	if (!isfinite(length))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: length must be finite", what);
	}
	if (!(length > 0.0))
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: length must be > 0 m, got %g", what, length);
	}
	return SN_ERR_OK;
}

static sn_error check_spring(sn_world* world, const char* what, bool enabled, sn_soft spring)
{
	if (!enabled)
	{
		return SN_ERR_OK;
	}
	if (spring.kind == SN_SOFT_RIGID)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "%s: an enabled spring must not be rigid", what);
	}
	return joint_check_soft(world, what, spring);
}

sn_error distance_joint_check_limit(sn_world* world, const char* what, sn_limit limit)
{
	if (!limit.enabled)
	{
		return SN_ERR_OK;
	}
	if (isnan(limit.lower) || isnan(limit.upper) || isinf(limit.lower))
	{
		return world_fail(world, SN_ERR_NOT_FINITE, "%s: min length must be finite and max not NaN", what);
	}
	if (limit.lower < 0.0)
	{
		return world_fail(world, SN_ERR_NEGATIVE_VALUE, "%s: min length must be >= 0 m", what);
	}
	if (limit.lower > limit.upper)
	{
		return world_fail(world, SN_ERR_LIMITS_ORDER, "%s: min length %g is above max length %g", what, limit.lower,
						  limit.upper);
	}
	return joint_check_soft(world, what, limit.soft);
}

sn_error sn_create_distance_joint(sn_world* world, const sn_distance_joint_def* def, sn_joint_id* out_id)
{
	if (def == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create distance joint: def is NULL");
	}
	const char* what = "create distance joint";
	sn_error err = check_length(world, what, def->length);
	if (err == SN_ERR_OK)
	{
		err = check_spring(world, what, def->spring_enabled, def->spring);
	}
	if (err == SN_ERR_OK)
	{
		err = distance_joint_check_limit(world, what, def->limit);
	}
	if (err != SN_ERR_OK)
	{
		return err;
	}
	joint config;
	memset(&config, 0, sizeof(config));
	config.length = def->length;
	config.spring_enabled = def->spring_enabled;
	config.spring = def->spring;
	config.axes[SN_AXIS_X].mode = def->limit.enabled ? SN_AXIS_LIMITED : SN_AXIS_FREE;
	config.axes[SN_AXIS_X].lower = def->limit.lower;
	config.axes[SN_AXIS_X].upper = def->limit.upper;
	config.axes[SN_AXIS_X].limit_soft = def->limit.soft;
	for (int a = SN_AXIS_Y; a < SN_AXIS_COUNT; ++a)
	{
		config.axes[a].mode = SN_AXIS_FREE;
	}
	config.movable = 1u << SN_AXIS_X;
	return joint_create(world, SN_JOINT_DISTANCE, &def->base, &config, out_id);
}

static joint* distance_joint(sn_world* world, sn_joint_id id, const char* what)
{
	joint* j = joint_get(world, id);
	if (j == NULL)
	{
		world_fail(world, SN_ERR_INVALID_ID, "%s: invalid joint id", what);
		return NULL;
	}
	if (j->type != SN_JOINT_DISTANCE)
	{
		world_fail(world, SN_ERR_WRONG_TYPE, "%s: joint is %s, not distance", what, sn_joint_type_name(j->type));
		return NULL;
	}
	return j;
}

sn_error sn_distance_joint_set_length(sn_world* world, sn_joint_id id, double length)
{
	joint* j = distance_joint(world, id, "set distance length");
	if (j == NULL)
	{
		return joint_get(world, id) == NULL ? SN_ERR_INVALID_ID : SN_ERR_WRONG_TYPE;
	}
	sn_error err = check_length(world, "set distance length", length);
	if (err == SN_ERR_OK)
	{
		j->length = length;
	}
	return err;
}

sn_error sn_distance_joint_set_spring(sn_world* world, sn_joint_id id, bool enabled, sn_soft spring)
{
	joint* j = distance_joint(world, id, "set distance spring");
	if (j == NULL)
	{
		return joint_get(world, id) == NULL ? SN_ERR_INVALID_ID : SN_ERR_WRONG_TYPE;
	}
	sn_error err = check_spring(world, "set distance spring", enabled, spring);
	if (err == SN_ERR_OK)
	{
		j->spring_enabled = enabled;
		j->spring = spring;
	}
	return err;
}

int distance_joint_build_rows(const joint* j, const joint_frame* f, row_builder* b)
{
	int start = b->count;
	double len = sn_length(f->d);
	sn_vec3 n = len > 1e-9 ? sn_scale(1.0 / len, f->d) : f->axis[0];
	sn_vec3 ang_a = sn_neg(sn_cross(sn_sub(f->pa, f->ca), n));
	sn_vec3 ang_b = sn_cross(sn_sub(f->pb, f->cb), n);
	int base = SN_AXIS_X * SLOTS_PER_AXIS;
	if (!j->spring_enabled)
	{
		builder_emit(b, base + SLOT_MAIN, n, ang_a, ang_b, len - j->length, j->lock_soft, -INFINITY, INFINITY, 0.0, 0);
		return b->count - start;
	}
	builder_emit(b, base + SLOT_MAIN, n, ang_a, ang_b, len - j->length, j->spring, -INFINITY, INFINITY, 0.0, 0);
	const sn_joint_axis* ax = j->axes + SN_AXIS_X;
	if (ax->mode == SN_AXIS_LIMITED)
	{
		builder_emit(b, base + SLOT_LOWER, n, ang_a, ang_b, len - ax->lower, ax->limit_soft, 0.0, INFINITY, 0.0,
					 ROW_UNILATERAL);
		if (isfinite(ax->upper))
		{
			builder_emit(b, base + SLOT_UPPER, sn_neg(n), sn_neg(ang_a), sn_neg(ang_b), ax->upper - len, ax->limit_soft,
						 0.0, INFINITY, 0.0, ROW_UNILATERAL);
		}
	}
	return b->count - start;
}
