// Prismatic (slider) joint: all rotation locked (C = theta, s_y, s_z) and the anchors kept on frame A's
// x axis (C = d . a_y, d . a_z). The translation x = d . a_x is free with limit, motor and spring. The
// axis turns with body A, so each linear row carries ang_a = -((rA + d) x a) (joint.h).
#include "joint/joint.h"
#include "world.h"

#include "sinew/joint.h"

#include <math.h>
#include <string.h>

sn_prismatic_joint_def sn_default_prismatic_joint_def(void)
{
	sn_prismatic_joint_def def;
	memset(&def, 0, sizeof(def));
	def.base = sn_default_joint_base();
	def.limit.soft = sn_soft_rigid();
	def.motor.max_force = INFINITY;
	def.spring.soft = sn_soft_stiffness(0.0, 0.0);
	def.spring.max_force = INFINITY;
	return def;
}

sn_error sn_create_prismatic_joint(sn_world* world, const sn_prismatic_joint_def* def, sn_joint_id* out_id)
{
	if (def == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create prismatic joint: def is NULL");
	}
	joint config;
	memset(&config, 0, sizeof(config));
	config.axes[SN_AXIS_X] = joint_moving_axis(def->limit, def->motor, def->spring);
	config.movable = 1u << SN_AXIS_X;
	return joint_create(world, SN_JOINT_PRISMATIC, &def->base, &config, out_id);
}
