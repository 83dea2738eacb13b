// Cylindrical joint: a prismatic joint whose twist is also free. Locks: C = d . a_y, d . a_z, s_y, s_z.
// Free: translation x = d . a_x and twist theta, each with its own limit, motor and spring.
#include "joint/joint.h"
#include "world.h"

#include "sinew/joint.h"

#include <math.h>
#include <string.h>

sn_cylindrical_joint_def sn_default_cylindrical_joint_def(void)
{
	sn_cylindrical_joint_def def;
	memset(&def, 0, sizeof(def));
	def.base = sn_default_joint_base();
	def.linear_limit.soft = sn_soft_rigid();
	def.angular_limit.soft = sn_soft_rigid();
	def.linear_motor.max_force = INFINITY;
	def.angular_motor.max_force = INFINITY;
	def.linear_spring.soft = sn_soft_stiffness(0.0, 0.0);
	def.angular_spring.soft = sn_soft_stiffness(0.0, 0.0);
	def.linear_spring.max_force = INFINITY;
	def.angular_spring.max_force = INFINITY;
	return def;
}

sn_error sn_create_cylindrical_joint(sn_world* world, const sn_cylindrical_joint_def* def, sn_joint_id* out_id)
{
	if (def == NULL)
	{
		return world_fail(world, SN_ERR_INVALID_ARGUMENT, "create cylindrical joint: def is NULL");
	}
	joint config;
	memset(&config, 0, sizeof(config));
	config.axes[SN_AXIS_X] = joint_moving_axis(def->linear_limit, def->linear_motor, def->linear_spring);
	config.axes[SN_AXIS_RX] = joint_moving_axis(def->angular_limit, def->angular_motor, def->angular_spring);
	config.movable = (1u << SN_AXIS_X) | (1u << SN_AXIS_RX);
	return joint_create(world, SN_JOINT_CYLINDRICAL, &def->base, &config, out_id);
}
